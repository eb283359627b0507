// Keys of a launched job's store whose first value stands (first_value.h):
// a peer's value and the mark of a rank that stopped waiting for it race,
// and every reader must see the same winner.

#include "job/first_value.h"

#include <gtest/gtest.h>

#include <chrono>
#include <exception>
#include <string>
#include <thread>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <vector>

#include "loopback_store.h"

namespace {

using ranktest::internal::setFirst;
using namespace std::chrono_literals;

std::vector<std::uint8_t> bytes(const std::string& text) {
  return {text.begin(), text.end()};
}

class HarnessFirstValue : public ::testing::Test {
 protected:
  harness_suite::LoopbackStore store_{3};
  std::vector<c10::intrusive_ptr<c10d::TCPStore>>& clients_ = store_.clients;
};

TEST_F(HarnessFirstValue, FirstValueStandsAndWakesTheWaiters) {
  // A waiter on another connection is woken (a compareSet alone wakes
  // none): its wait would otherwise end at the store's 10 s timeout.
  bool woken = false;
  std::thread waiter([&] {
    try {
      clients_[1]->wait({"key"});
      woken = true;
    } catch (const std::exception&) {  // the timeout
    }
  });
  std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(setFirst(*clients_[0], "key", bytes("report")));
  waiter.join();
  EXPECT_TRUE(woken);
  EXPECT_FALSE(setFirst(*clients_[2], "key", bytes("mark: late")));
  EXPECT_EQ(clients_[1]->get("key"), bytes("report"));
}

// A value and a mark set at the same moment, many times: exactly one of the
// two stands each time, and it is what the key holds.
TEST_F(HarnessFirstValue, OfTwoRacingValuesExactlyOneStands) {
  constexpr int kKeys = 300;
  std::vector<char> value_stood(kKeys), mark_stood(kKeys);
  std::thread peer([&] {
    for (int i = 0; i < kKeys; ++i) {
      value_stood[i] =
          setFirst(*clients_[0], "k" + std::to_string(i), bytes("value"));
    }
  });
  for (int i = 0; i < kKeys; ++i) {
    mark_stood[i] =
        setFirst(*clients_[1], "k" + std::to_string(i), bytes("mark"));
  }
  peer.join();
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_NE(value_stood[i], mark_stood[i]) << "key " << i;
    EXPECT_EQ(clients_[2]->get("k" + std::to_string(i)),
              bytes(value_stood[i] ? "value" : "mark"))
        << "key " << i;
  }
}

}  // namespace
