#pragma once

// A launched rank's answer to "where are you?": when a rank's report is late,
// a peer asks it through the job's store, and a thread of the late rank,
// on a store connection of its own, answers with the phase it last entered
// and the stack of its main thread, even while that thread is stuck. A rank
// that does not answer is stopped, or its host is gone.
//
// The same thread is the rank's heartbeat: each poll counts up a key that
// peers read (beat()), and how long its current store call has waited tells
// this rank that the store stopped answering (silence()).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace ranktest::internal {

class HeartbeatThread {
 public:
  // Called on the responder's thread after each poll, with its store
  // connection (for watching peers without a connection of its own).
  using PollHook = std::function<void(c10d::Store&)>;

  // Starts answering for `rank` on `store`. Construct it on the main thread:
  // that is the thread whose stack it gives.
  HeartbeatThread(c10::intrusive_ptr<c10d::Store> store, int rank,
                  PollHook hook = {});
  ~HeartbeatThread();  // stop()s
  HeartbeatThread(const HeartbeatThread&) = delete;
  HeartbeatThread& operator=(const HeartbeatThread&) = delete;

  // What this rank is doing now, for the next answer.
  void setPhase(std::string phase);

  // Stops answering (within one poll, 200 ms); before the process ends.
  void stop();

  // Holds the responder between two polls while the caller forks: a child
  // of fork inherits every lock the responder's thread holds (libtorch 2.x
  // takes a process-wide one on a store call's first use). Waits at most
  // `limit` for the poll in progress (a store that stopped answering keeps
  // it); the lock returned is then not held.
  std::unique_lock<std::timed_mutex> pauseForFork(
      std::chrono::milliseconds limit);

  // How long the store call in progress has waited for the store's answer;
  // zero between calls, and once the store closed the connection.
  std::chrono::milliseconds silence() const;

  // The phase given last to setPhase().
  std::string phase() const;

  // `rank`'s heartbeat count (through `store`, any connection): it grows
  // every poll while that rank's process runs and reaches the store.
  static std::int64_t beat(c10d::Store& store, int rank);

  // Asks `rank` (through `store`, any connection) and waits up to `wait` for
  // its answer; nullopt when none came.
  static std::optional<std::string> ask(c10d::Store& store, int rank,
                                        std::chrono::milliseconds wait);

 private:
  void serve();
  std::string answer();

  c10::intrusive_ptr<c10d::Store> store_;
  int rank_;
  PollHook hook_;
  pthread_t main_thread_;
  mutable std::mutex mutex_;
  std::timed_mutex polling_;  // held by the thread for each poll
  std::string phase_ = "starting";
  std::atomic<bool> stop_{false};
  // steady_clock nanoseconds at which the call in progress began; 0: none.
  std::atomic<std::int64_t> call_since_{0};
  std::thread thread_;
};

}  // namespace ranktest::internal
