#include "ddp_step/cell.h"

#include <ATen/Parallel.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <torch/optim/sgd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <stdexcept>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <vector>

#include "ddp_step/hooks.h"
#include "ddp_step/models.h"
#include "fixtures/rank_data.h"
#include "ranktest/counting_process_group.h"
#include "ranktest/internal/process_group_factory.h"

namespace ddp_step {
namespace {

constexpr std::uint64_t kSeed = 7;
constexpr double kLearningRate = 0.01;
// Batches are made before timing and cycled through.
constexpr int kDistinctBatches = 16;

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A fresh model and DDP over `group` with the row's hook, and SGD over it.
struct Trainer {
  Trainer(const ModelRow& model, const HookRow& hook, const Group& group)
      : ddp(model.make(kSeed), group),
        sgd(ddp.module()->parameters(),
            torch::optim::SGDOptions(kLearningRate)) {
    if (hook.install) hook.install(ddp, group);
  }

  // `n` steps from batch `first` on; each step's wall time, in
  // microseconds, goes to `us` when there is one.
  void steps(const std::vector<fixtures::Batch>& batches, int first, int n,
             std::vector<double>* us) {
    for (int i = 0; i < n; ++i) {
      const fixtures::Batch& b =
          batches[static_cast<std::size_t>(first + i) % batches.size()];
      const std::int64_t start = nowNs();
      distalgo::ddp::zeroGradients(*ddp.module());
      at::Tensor loss = at::mse_loss(ddp.forward(b.input), b.target);
      loss.backward();
      sgd.step();
      const std::int64_t end = nowNs();
      if (us) us->push_back(static_cast<double>(end - start) / 1e3);
    }
  }

  Ddp ddp;
  torch::optim::SGD sgd;
};

// Every rank's step times, the maximum over the ranks per step (a step is
// as slow as its slowest rank). Collective.
std::vector<double> slowestRankPerStep(const Group& group,
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

void runRank(const CellSpec& spec, int rank, const std::string& store_path,
             const std::string& out) {
  // Both sides compute on one thread per rank: the ranks share the cores.
  at::set_num_threads(1);
  const ModelRow& model = *findModel(spec.model);
  const HookRow& hook = *findHook(spec.hook);
  c10::intrusive_ptr<c10d::Store> store =
      c10::make_intrusive<c10d::FileStore>(store_path, spec.world_size);
  const Group group = ranktest::internal::createProcessGroup(
      "gloo", store, rank, spec.world_size, std::chrono::seconds(60));

  std::vector<fixtures::Batch> batches;
  for (int i = 0; i < kDistinctBatches; ++i) {
    batches.push_back(
        fixtures::rankBatch(i, rank, spec.rows, model.inputs, model.outputs));
  }

  std::vector<double> us;
  {
    Trainer timed(model, hook, group);
    timed.steps(batches, 0, spec.warmup, nullptr);
    group->barrier()->wait();
    timed.steps(batches, spec.warmup, spec.steps, &us);
  }
  const std::vector<double> slowest = slowestRankPerStep(group, us);

  // Bytes in a separate run through a counting group, so that the timed
  // run pays nothing for counting.
  std::map<std::string, ranktest::Traffic> traffic;
  {
    auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(group);
    Trainer counted(model, hook, counting);
    counted.steps(batches, 0, spec.warmup, nullptr);
    counting->reset();
    counted.steps(batches, spec.warmup, spec.count_steps, nullptr);
    traffic = counting->allTraffic();
  }

  if (rank != 0) return;
  std::ofstream file(out, std::ios::app);
  const std::string key = "cpp\t" + spec.model + "\t" +
                          std::to_string(spec.world_size) + "\t" + spec.hook;
  for (double v : slowest) file << "step\t" << key << "\t" << v << "\n";
  if (traffic.empty()) file << "bytes\t" << key << "\tnone\t0\t0\n";
  for (const auto& [collective, t] : traffic) {
    file << "bytes\t" << key << "\t" << collective << "\t"
         << static_cast<double>(t.calls) / spec.count_steps << "\t"
         << static_cast<double>(t.bytes) / spec.count_steps << "\n";
  }
  if (!file.flush()) throw std::runtime_error("cannot write " + out);
}

}  // namespace

int runCell(const CellSpec& spec, const std::string& out) {
  if (!findModel(spec.model)) {
    throw std::invalid_argument("unknown model " + spec.model);
  }
  if (!findHook(spec.hook)) {
    throw std::invalid_argument("unknown hook " + spec.hook);
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string store_path =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/ddp_step.XXXXXX";
  const int fd = ::mkstemp(store_path.data());
  if (fd < 0) throw std::runtime_error(std::strerror(errno));
  ::close(fd);

  const pid_t parent = ::getpid();
  std::vector<pid_t> pids;
  for (int rank = 0; rank < spec.world_size; ++rank) {
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::strerror(errno));
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(1);
      int code = 0;
      try {
        runRank(spec, rank, store_path, out);
      } catch (const std::exception& error) {
        std::fprintf(stderr, "[bench_ddp_step] rank %d: %s\n", rank,
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

}  // namespace ddp_step
