#include "process/child_setup.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "plan/open_files_limit.h"
#include "process/program.h"
#include "rank/rank_signals.h"
#include "ranktest/skip_codes.h"
#include "wire/rank_launch.h"

namespace ranktest::internal {
namespace {

// A fixed-size message built without allocating: the child of fork() in a
// possibly multithreaded parent may only make async-signal-safe calls.
class ChildMessage {
 public:
  ChildMessage& operator<<(const char* text) {
    while (*text != '\0' && size_ < sizeof(text_)) text_[size_++] = *text++;
    return *this;
  }
  ChildMessage& operator<<(unsigned long long value) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value > 0);
    while (n > 0 && size_ < sizeof(text_)) text_[size_++] = digits[--n];
    return *this;
  }
  void writeTo(int fd) const {
    ssize_t ignored = ::write(fd, text_, size_);
    (void)ignored;
  }

 private:
  char text_[512];
  std::size_t size_ = 0;
};

// Says on `report_fd` (the rank's output) which descriptor step failed and
// why, and exits with kRankSetupExitCode, which the parent's report explains.
[[noreturn]] void failDescriptorSetup(int report_fd, const char* step) {
  const int error = errno;
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  const char* error_name = ::strerrorname_np(error);
  ChildMessage message;
  message << "[ranktest] the rank cannot set up its file descriptors: " << step
          << " failed with " << (error_name ? error_name : "an error")
          << "; RLIMIT_NOFILE is "
          << static_cast<unsigned long long>(limit.rlim_cur)
          << "; raise it (e.g. ulimit -n " << kSuggestedOpenFilesLimit
          << ") before running the tests\n";
  message.writeTo(report_fd);
  ::_exit(kRankSetupExitCode);
}

}  // namespace

// Every descriptor step is checked: a rank whose stdout or result pipe is
// not in place would report into the wrong file and leave its parent
// waiting. All other descriptors are closed, so that no listening socket or
// pipe end of the parent leaks in.
void prepareRankChild(pid_t parent, const RankDescriptors& fds,
                      int exec_error_fd) {
  const int output = fds.output;
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // SIGPIPE stays ignored (inherited from the parent), as in a Python-hosted
  // PyTorch rank: a write to a peer that left then fails in the collective
  // with "Broken pipe", reported and hinted at, instead of killing the rank.
  // A stack request (at the deadline) may come before the rank installs its
  // handler, e.g. while a spawned rank still loads: ignored, it cannot kill
  // the rank, whose report then says "still running" as it should. An
  // ignored disposition survives exec; the handler replaces it.
  ::signal(stackRequestSignal(), SIG_IGN);
  // The parent's interrupt handlers are not the rank's (interrupt.h).
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  if (::getppid() != parent) ::_exit(kTestErrorExitCode);
  // Move the sources above the targets first, so dup2 never clobbers one.
  int sources[4] = {fds.output, fds.result, fds.control, fds.store_file};
  for (int& fd : sources) {
    if (fd < 0) continue;
    fd = ::fcntl(fd, F_DUPFD, kStoreFileFd + 1);
    if (fd < 0) failDescriptorSetup(output, "fcntl(F_DUPFD)");
  }
  if (::dup2(sources[0], STDOUT_FILENO) < 0) {
    failDescriptorSetup(output, "dup2 to stdout");
  }
  if (::dup2(sources[0], STDERR_FILENO) < 0) {
    failDescriptorSetup(STDOUT_FILENO, "dup2 to stderr");
  }
  if (::dup2(sources[1], kResultFd) < 0) {
    failDescriptorSetup(STDOUT_FILENO, "dup2 to the result descriptor");
  }
  if (sources[2] >= 0 && ::dup2(sources[2], kControlFd) < 0) {
    failDescriptorSetup(STDOUT_FILENO, "dup2 to the control descriptor");
  }
  if (sources[3] >= 0 && ::dup2(sources[3], kStoreFileFd) < 0) {
    failDescriptorSetup(STDOUT_FILENO, "dup2 to the store file descriptor");
  }
  closeDescriptorsAbove(kStoreFileFd, exec_error_fd);
  if (sources[2] < 0) ::close(kControlFd);
  if (sources[3] < 0) ::close(kStoreFileFd);
  // Without /dev/null the rank keeps the parent's stdin: harmless.
  int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0 && devnull != STDIN_FILENO) {
    ::dup2(devnull, STDIN_FILENO);
    ::close(devnull);
  }
}

}  // namespace ranktest::internal
