#include "harness_overhead/fixtures.h"

#include <signal.h>
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

#include "harness_overhead/board.h"
#include "harness_overhead/clocks.h"
#include "harness_overhead/temp_file.h"

namespace harness_overhead {
namespace {

c10::intrusive_ptr<c10d::ProcessGroup> glooGroup(
    const c10::intrusive_ptr<c10d::Store>& store, int rank, int world_size) {
  // As the harness builds it: loopback device, 60 s timeout, 2 threads.
  auto options =
      c10d::ProcessGroupGloo::Options::create(std::chrono::seconds(60));
  options->devices.push_back(
      c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world_size,
                                                     options);
}

}  // namespace

Barrier::Barrier() { slot_.pg_ready_ns = nowNs(); }

void Barrier::TearDown() {
  slot_.pid = ::getpid();
  slot_.alive_ns = aliveNs();
  slot_.done_ns = nowNs();
  stampBoard(rank(), slot_);
}

void Barrier::rankBody() {
  slot_.body_start_ns = nowNs();
  pg()->barrier()->wait();
  slot_.body_end_ns = nowNs();
}

std::unique_ptr<ranktest::DistributedTest> makeBarrier() {
  return std::make_unique<Barrier>();
}

void runBareRank(int rank, int world_size, int store_fd) {
  int code = 0;
  try {
    Slot slot;
    slot.pid = ::getpid();
    slot.alive_ns = aliveNs();
    {
      c10::intrusive_ptr<c10d::Store> store =
          c10::make_intrusive<c10d::FileStore>(
              "/proc/self/fd/" + std::to_string(store_fd), world_size);
      auto pg = glooGroup(store, rank, world_size);
      slot.pg_ready_ns = slot.body_start_ns = nowNs();
      pg->barrier()->wait();
      slot.body_end_ns = slot.done_ns = nowNs();
      stampBoard(rank, slot);
      // Exit inside this scope, with the group alive, as a ranktest rank
      // does: tearing a Gloo group down costs a 10 ms loop tick per pair,
      // which neither side pays.
      std::fflush(nullptr);
      ::_exit(0);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "[bench] bare rank %d: %s\n", rank, error.what());
    code = 1;
  }
  std::fflush(nullptr);
  ::_exit(code);
}

BareTest::BareTest(int world_size, bool spawn, std::string program)
    : world_size_(world_size), spawn_(spawn), program_(std::move(program)) {}

void BareTest::TestBody() {
  std::string path;
  // Not close-on-exec: exec'ed ranks inherit it.
  const int store_fd = createTempFile("ranktest-bare", 0, &path);
  ASSERT_GE(store_fd, 0) << std::strerror(errno);
  ::unlink(path.c_str());
  // Built before fork: the child only execs.
  std::vector<std::string> flags;
  for (int rank = 0; rank < world_size_; ++rank) {
    flags.push_back(kBareRankFlag + std::to_string(rank) + "," +
                    std::to_string(world_size_) + "," +
                    std::to_string(store_fd));
  }
  const pid_t parent = ::getpid();
  std::vector<pid_t> pids;
  for (int rank = 0; rank < world_size_; ++rank) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0) << std::strerror(errno);
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);
      if (spawn_) {
        char* argv[] = {program_.data(), flags[rank].data(), nullptr};
        ::execv("/proc/self/exe", argv);
        ::_exit(127);
      }
      runBareRank(rank, world_size_, store_fd);
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

}  // namespace harness_overhead
