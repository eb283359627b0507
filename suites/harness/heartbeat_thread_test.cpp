// A launched rank's answer to "where are you?" through a store: its phase
// and its main thread's stack while that thread waits; no answer once it
// stopped answering; no poll while it is paused for a fork.

#include "job/liveness/heartbeat_thread.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <thread>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "loopback_store.h"

namespace {

using ranktest::internal::HeartbeatThread;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Optional;
using namespace std::chrono_literals;

class HarnessHeartbeatThread : public ::testing::Test {
 protected:
  harness_suite::LoopbackStore store_{1};
  c10::intrusive_ptr<c10d::TCPStore>& server_ = store_.server;
  c10::intrusive_ptr<c10d::TCPStore>& client_ = store_.clients.front();
};

TEST_F(HarnessHeartbeatThread, AnswersWithItsPhaseAndTheWaitingMainStack) {
  HeartbeatThread responder(client_, 1);
  responder.setPhase("supervising its body in pid 42");
  // This thread, the responder's main thread, waits in ask(): its stack
  // shows it.
  const std::optional<std::string> answer =
      HeartbeatThread::ask(*server_, 1, 5s);
  EXPECT_THAT(answer,
              Optional(AllOf(HasSubstr("alive, supervising its body in pid 42"),
                             HasSubstr("its main thread's stack:"),
                             HasSubstr("HeartbeatThread3ask"))));
  // A second question gets a second answer.
  responder.setPhase("between distributed tests");
  EXPECT_THAT(HeartbeatThread::ask(*server_, 1, 5s),
              Optional(HasSubstr("alive, between distributed tests")));
}

TEST_F(HarnessHeartbeatThread, NoAnswerOnceStopped) {
  HeartbeatThread responder(client_, 2);
  responder.stop();
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(HeartbeatThread::ask(*server_, 2, 1s), std::nullopt);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
}

TEST_F(HarnessHeartbeatThread, PausedForAForkItDoesNotPollUntilReleased) {
  HeartbeatThread responder(client_, 3);
  // Its first poll counts its heartbeat up.
  const auto first_due = std::chrono::steady_clock::now() + 5s;
  while (HeartbeatThread::beat(*server_, 3) == 0 &&
         std::chrono::steady_clock::now() < first_due) {
    std::this_thread::sleep_for(10ms);
  }
  {
    const auto paused = responder.pauseForFork(5s);
    ASSERT_TRUE(paused.owns_lock());
    const std::int64_t held = HeartbeatThread::beat(*server_, 3);
    EXPECT_GT(held, 0);
    std::this_thread::sleep_for(600ms);  // three polls' time
    EXPECT_EQ(HeartbeatThread::beat(*server_, 3), held);
  }
  const std::int64_t released = HeartbeatThread::beat(*server_, 3);
  const auto next_due = std::chrono::steady_clock::now() + 5s;
  while (HeartbeatThread::beat(*server_, 3) == released &&
         std::chrono::steady_clock::now() < next_due) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_GT(HeartbeatThread::beat(*server_, 3), released);
}

}  // namespace
