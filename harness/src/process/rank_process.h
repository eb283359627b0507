#pragma once

// The parent's handle on one rank process: started by fork or by re-executing
// the test binary, in a process group of its own and with PR_SET_PDEATHSIG, so
// that it dies with the parent. The destructor kills and reaps it.

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ranktest/test_options.h"
#include "wire/rank_launch.h"

namespace ranktest::internal {

class RankProcess {
 public:
  ~RankProcess();
  RankProcess(const RankProcess&) = delete;
  RankProcess& operator=(const RankProcess&) = delete;

  // Starts a rank. `store_file_fd` (or -1) becomes the rank's kStoreFileFd;
  // `reusable` gives it a control pipe for kRun records. A forked rank runs
  // `forked_main` (which must not return) instead of the registered test
  // named in `launch`.
  static std::unique_ptr<RankProcess> start(
      const RankLaunch& launch, StartMethod method, int store_file_fd,
      bool reusable, const std::function<void()>& forked_main = {});

  int rank() const { return rank_; }
  pid_t pid() const { return pid_; }
  // Combined stdout and stderr of the rank.
  int outputFd() const { return output_fd_; }
  int resultFd() const { return result_fd_; }
  // -1 for one-shot ranks.
  int controlFd() const { return control_fd_; }
  // Readable when the process exits (pidfd), or -1 where unsupported.
  int exitFd() const { return pidfd_; }

  // Non-blocking; true once the process has exited and was reaped.
  bool pollExit();
  bool exited() const { return exited_; }
  int waitStatus() const { return wait_status_; }

  // Sends `signal_number` to the rank (not its group).
  void signal(int signal_number) const;
  // Waits at most `limit` for the rank to be stopped (SIGSTOP); true if it
  // is. Leaves its wait status to pollExit().
  bool waitUntilStopped(std::chrono::milliseconds limit) const;
  // SIGKILLs the rank's process group and reaps the rank.
  void kill();
  // Closes the reading ends (after the parent drained them).
  void closeOutput();

 private:
  RankProcess() = default;
  int rank_ = 0;
  pid_t pid_ = -1;
  int output_fd_ = -1;
  int result_fd_ = -1;
  int control_fd_ = -1;
  int pidfd_ = -1;
  bool exited_ = false;
  int wait_status_ = 0;
};

// Remembers argv for spawned ranks (called by ranktest::init).
void setOriginalArguments(int argc, char** argv);
bool haveOriginalArguments();

}  // namespace ranktest::internal
