#include "bench_common/ranks.h"

#include <ATen/ATen.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <torch/csrc/distributed/c10d/FileStore.hpp>

#include "ranktest/internal/process_group_factory.h"

namespace bench_common {

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int forkRanks(
    int world_size, const std::string& tag,
    const std::function<void(int rank, const std::string& store_path)>& body) {
  const char* tmp = std::getenv("TMPDIR");
  std::string store_path =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/" + tag + ".XXXXXX";
  const int fd = ::mkstemp(store_path.data());
  if (fd < 0) throw std::runtime_error(std::strerror(errno));
  ::close(fd);

  const pid_t parent = ::getpid();
  std::vector<pid_t> pids;
  for (int rank = 0; rank < world_size; ++rank) {
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::strerror(errno));
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);
      int code = 0;
      try {
        body(rank, store_path);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "[bench_%s] rank %d: %s\n", tag.c_str(), rank,
                     error.what());
        code = 1;
      }
      // With the group alive: its teardown is nothing this measures.
      std::fflush(nullptr);
      ::_exit(code);
    }
    pids.push_back(pid);
  }

  int failed = 0;
  for (std::size_t left = pids.size(); left > 0; --left) {
    int status = 0;
    pid_t pid;
    while ((pid = ::waitpid(-1, &status, 0)) < 0 && errno == EINTR) {
    }
    if (pid < 0) break;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) continue;
    ++failed;
    // The others would wait for it until Gloo's timeout.
    for (pid_t other : pids) {
      if (other != pid) ::kill(other, SIGKILL);
    }
  }
  ::unlink(store_path.c_str());
  return failed == 0 ? 0 : 1;
}

c10::intrusive_ptr<c10d::ProcessGroup> glooGroup(const std::string& store_path,
                                                 int rank, int world_size) {
  c10::intrusive_ptr<c10d::Store> store =
      c10::make_intrusive<c10d::FileStore>(store_path, world_size);
  return ranktest::internal::createProcessGroup("gloo", store, rank, world_size,
                                                std::chrono::seconds(60));
}

std::vector<double> slowestRankPerStep(
    const c10::intrusive_ptr<c10d::ProcessGroup>& group,
    const std::vector<double>& us) {
  at::Tensor mine = at::tensor(us, at::kDouble);
  std::vector<std::vector<at::Tensor>> all(1);
  for (int r = 0; r < group->getSize(); ++r) {
    all[0].push_back(at::empty_like(mine));
  }
  std::vector<at::Tensor> input{mine};
  group->allgather(all, input)->wait();
  at::Tensor slowest = std::get<0>(at::stack(all[0]).max(0)).contiguous();
  const double* data = slowest.data_ptr<double>();
  return {data, data + slowest.numel()};
}

}  // namespace bench_common
