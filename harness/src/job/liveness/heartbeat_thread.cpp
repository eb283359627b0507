#include "job/liveness/heartbeat_thread.h"

#include <execinfo.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <vector>

#include "job/liveness/periods.h"
#include "wire/check.h"
#include "wire/store_keys.h"

namespace ranktest::internal {
namespace {

using namespace std::chrono_literals;

constexpr int kMaxMainFrames = 64;

// The main thread's frames, written by the handler that runs on it; the pipe
// tells the asking thread that they are there.
void* g_main_frames[kMaxMainFrames];
int g_main_frame_count = 0;
int g_done_pipe[2] = {-1, -1};

int mainStackSignal() { return SIGRTMIN + 4; }

void onMainStackSignal(int) {
  g_main_frame_count = ::backtrace(g_main_frames, kMaxMainFrames);
  const char done = 1;
  ssize_t ignored = ::write(g_done_pipe[1], &done, 1);
  (void)ignored;
}

std::int64_t steadyNow() {
  return std::chrono::steady_clock::now().time_since_epoch().count();
}

}  // namespace

HeartbeatThread::HeartbeatThread(c10::intrusive_ptr<c10d::Store> store,
                                 int rank, PollHook hook)
    : store_(std::move(store)),
      rank_(rank),
      hook_(std::move(hook)),
      main_thread_(::pthread_self()) {
  // backtrace() loads libgcc on first use: not inside the handler.
  void* warm[4];
  ::backtrace(warm, 4);
  // One pipe for the process: there is one main thread.
  if (g_done_pipe[0] < 0 && ::pipe2(g_done_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    RANKTEST_FAIL("ranktest: pipe2 for the state responder");
  }
  struct sigaction action {};
  action.sa_handler = onMainStackSignal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  ::sigaction(mainStackSignal(), &action, nullptr);
  thread_ = std::thread([this] { serve(); });
}

HeartbeatThread::~HeartbeatThread() { stop(); }

void HeartbeatThread::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void HeartbeatThread::setPhase(std::string phase) {
  const std::lock_guard<std::mutex> lock(mutex_);
  phase_ = std::move(phase);
}

std::string HeartbeatThread::answer() {
  std::string text;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    text = "alive, " + phase_;
  }
  char drained;
  while (::read(g_done_pipe[0], &drained, 1) == 1) {
  }
  ::pthread_kill(main_thread_, mainStackSignal());
  pollfd done{g_done_pipe[0], POLLIN, 0};
  if (::poll(&done, 1, 1000) != 1 || ::read(g_done_pipe[0], &drained, 1) != 1) {
    return text + "; its main thread did not give its stack within 1 s";
  }
  text += "; its main thread's stack:";
  const std::unique_ptr<char*, decltype(&std::free)> names(
      ::backtrace_symbols(g_main_frames, g_main_frame_count), &std::free);
  // Frame 0 is the handler, 1 the signal trampoline.
  for (int i = 2; names && i < g_main_frame_count; ++i) {
    text += "\n    ";
    text += names.get()[i];
  }
  return text;
}

std::chrono::milliseconds HeartbeatThread::silence() const {
  const std::int64_t since = call_since_;
  if (since == 0) return std::chrono::milliseconds(0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::nanoseconds(steadyNow() - since));
}

std::string HeartbeatThread::phase() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return phase_;
}

std::int64_t HeartbeatThread::beat(c10d::Store& store, int rank) {
  return store.add(keys::beat(rank), 0);
}

void HeartbeatThread::serve() {
  // Marks the store calls in its scope for silence(): a store that neither
  // answers nor closes (a cut-off host, a stopped server) leaves one waiting.
  struct InStoreCalls {
    explicit InStoreCalls(std::atomic<std::int64_t>& since) : since_(since) {
      since_ = steadyNow();
    }
    ~InStoreCalls() { since_ = 0; }
    std::atomic<std::int64_t>& since_;
  };
  std::int64_t answered = 0;
  while (!stop_) {
    std::unique_lock<std::timed_mutex> polling(polling_);
    try {
      std::int64_t asked = 0;
      {
        const InStoreCalls calls(call_since_);
        store_->add(keys::beat(rank_), 1);
        asked = store_->add(keys::ask(rank_), 0);
      }
      if (asked > answered) {
        const std::string text = answer();  // not a store call: 1 s at most
        const InStoreCalls calls(call_since_);
        store_->set(keys::answer(rank_, asked),
                    std::vector<uint8_t>(text.begin(), text.end()));
        answered = asked;
      }
      if (hook_) {
        const InStoreCalls calls(call_since_);
        hook_(*store_);
      }
    } catch (const std::exception&) {
      return;  // the store is gone: the job is over
    }
    polling.unlock();
    std::this_thread::sleep_for(liveness::kBeat);
  }
}

std::unique_lock<std::timed_mutex> HeartbeatThread::pauseForFork(
    std::chrono::milliseconds limit) {
  return std::unique_lock<std::timed_mutex>(polling_, limit);
}

std::optional<std::string> HeartbeatThread::ask(
    c10d::Store& store, int rank, std::chrono::milliseconds wait) {
  const std::int64_t question = store.add(keys::ask(rank), 1);
  try {
    store.wait({keys::answer(rank, question)}, wait);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::vector<uint8_t> bytes = store.get(keys::answer(rank, question));
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace ranktest::internal
