#pragma once

// A launched rank's answer to "where are you?": when a rank's report is late,
// a peer asks it through the job's store, and a thread of the late rank,
// on a store connection of its own, answers with the phase it last entered
// and the stack of its main thread, even while that thread is stuck. A rank
// that does not answer is stopped, or its host is gone.

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace ranktest::internal {

class StateResponder {
 public:
  // Starts answering for `rank` on `store`. Construct it on the main thread:
  // that is the thread whose stack it gives.
  StateResponder(c10::intrusive_ptr<c10d::Store> store, int rank);
  ~StateResponder();  // stop()s
  StateResponder(const StateResponder&) = delete;
  StateResponder& operator=(const StateResponder&) = delete;

  // What this rank is doing now, for the next answer.
  void setPhase(std::string phase);

  // Stops answering (within one poll, 200 ms); before the process ends.
  void stop();

  // Asks `rank` (through `store`, any connection) and waits up to `wait` for
  // its answer; nullopt when none came.
  static std::optional<std::string> ask(c10d::Store& store, int rank,
                                        std::chrono::milliseconds wait);

 private:
  void serve();
  std::string answer();

  c10::intrusive_ptr<c10d::Store> store_;
  int rank_;
  pthread_t main_thread_;
  std::mutex mutex_;
  std::string phase_ = "starting";
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace ranktest::internal
