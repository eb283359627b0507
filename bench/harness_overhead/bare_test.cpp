#include "harness_overhead/bare_test.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <vector>

namespace bench {

void runBareRank(int rank, int world_size, int store_fd) {
  int code = 0;
  try {
    auto store = c10::make_intrusive<c10d::FileStore>(
        "/proc/self/fd/" + std::to_string(store_fd), world_size);
    // As ranktest builds it: loopback device, 60 s timeout.
    auto options =
        c10d::ProcessGroupGloo::Options::create(std::chrono::seconds(60));
    options->devices.push_back(
        c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank,
                                                          world_size, options);
    pg->barrier()->wait();
    // With the group alive: tearing it down costs a Gloo loop tick per pair,
    // which ranktest's ranks do not pay either.
    std::fflush(nullptr);
    ::_exit(0);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "bare rank %d: %s\n", rank, error.what());
    code = 1;
  }
  std::fflush(nullptr);
  ::_exit(code);
}

BareTest::BareTest(int world_size, bool spawn, std::string program)
    : world_size_(world_size), spawn_(spawn), program_(std::move(program)) {}

void BareTest::TestBody() {
  const char* tmp = std::getenv("TMPDIR");
  std::string path =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/ranktest-bare.XXXXXX";
  // Not close-on-exec: exec'ed ranks open it through /proc/self/fd.
  const int store_fd = ::mkstemp(path.data());
  ASSERT_GE(store_fd, 0) << std::strerror(errno);
  ::unlink(path.c_str());
  std::vector<std::string> flags;  // built before fork: a child only execs
  flags.reserve(world_size_);
  for (int rank = 0; rank < world_size_; ++rank) {
    flags.push_back(kBareRankFlag + std::to_string(rank) + "," +
                    std::to_string(world_size_) + "," +
                    std::to_string(store_fd));
  }
  std::vector<pid_t> pids;
  for (int rank = 0; rank < world_size_; ++rank) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0) << std::strerror(errno);
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (!spawn_) runBareRank(rank, world_size_, store_fd);
      char* argv[] = {program_.data(), flags[rank].data(), nullptr};
      ::execv("/proc/self/exe", argv);
      ::_exit(127);
    }
    pids.push_back(pid);
  }
  for (std::size_t rank = 0; rank < pids.size(); ++rank) {
    int status = 0;
    while (::waitpid(pids[rank], &status, 0) < 0 && errno == EINTR) {
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "bare rank " << rank << " ended with status " << status;
  }
  ::close(store_fd);
}

}  // namespace bench
