#pragma once

// A launched rank whose job's store stops answering (its host cut off from
// the network, the store's process stopped) would wait in a store call
// forever: TCP tells nothing of a peer that neither answers nor closes. The
// watchdog gives up for the rank: once the heartbeat thread's store call has
// waited `grace`, it prints that the rank lost the job's store and what it
// was doing (the responder's phase), and ends the process with code 1 (its body
// dies with it), so that its launcher ends too.
//
// It also watches the rank's launcher: a rank whose launcher died (killed
// with SIGKILL, as a CI runner's timeout may) is reparented, and would run
// the rest of its tests for nobody and write its XML after whoever killed
// the job has cleaned up. Within one check it stops as if interrupted
// (SIGTERM to itself): rank 0 writes its XML with the interrupted test, and
// every rank ends.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "job/liveness/heartbeat_thread.h"

namespace ranktest::internal {

class StoreSilenceWatch {
 public:
  // Watches `responder` (which must outlive the watchdog). `who` names the
  // rank ("rank 1 of 2 (host h (address), pid p)"); `store_address` is
  // host:port.
  StoreSilenceWatch(const HeartbeatThread& responder, std::string who,
                    std::string store_address, std::chrono::milliseconds grace);
  ~StoreSilenceWatch();  // stop()s
  StoreSilenceWatch(const StoreSilenceWatch&) = delete;
  StoreSilenceWatch& operator=(const StoreSilenceWatch&) = delete;

  // Stops watching (within one check, 100 ms).
  void stop();

 private:
  void watch();
  void stopIfTheLauncherIsGone();
  [[noreturn]] void giveUp(std::chrono::milliseconds silent);

  const HeartbeatThread& heartbeat_;
  const std::string who_;
  const std::string store_address_;
  const std::chrono::milliseconds grace_;
  const pid_t launcher_;
  bool launcher_gone_ = false;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace ranktest::internal
