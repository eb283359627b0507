#pragma once

// The models the DDP benchmarks train: the fixtures' MLP and conv net, both
// 8 inputs to 4 outputs (bench/ddp_step.py builds the same in Python), and
// MLPs of 256 features (wide: 0.5 M parameters; deep: 3.2 M); and a trainer
// that times DDP steps on them.

#include <torch/nn/modules/container/sequential.h>
#include <torch/optim/sgd.h>

#include <cstdint>
#include <functional>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/rank_data.h"

namespace bench_common {

using Ddp = distalgo::ddp::DistributedDataParallel<torch::nn::Sequential>;
using Group = c10::intrusive_ptr<c10d::ProcessGroup>;

// Every rank builds its model from this seed.
inline constexpr std::uint64_t kModelSeed = 7;

struct ModelRow {
  std::string name;
  std::function<torch::nn::Sequential(std::uint64_t seed)> make;
  int inputs = 0;
  int outputs = 0;
};

const std::vector<ModelRow>& modelRows();
// Nothing for an unknown name.
const ModelRow* findModel(const std::string& name);

// The batches a rank cycles through, made before timing.
std::vector<fixtures::Batch> rankBatches(const ModelRow& model, int rank,
                                         int rows);

// What every rank of a DDP benchmark cell sets up before timing: one
// intra-op thread (the ranks share the cores), its Gloo group and its
// batches. Collective.
struct RankSetup {
  Group group;
  std::vector<fixtures::Batch> batches;
};
RankSetup setUpRank(const ModelRow& model, const std::string& store_path,
                    int rank, int world_size, int rows);

// `n` steps (zero the gradients, forward, MSE loss, backward through
// `ddp`, then `optimizer_step`) from batch `first` on; each step's wall
// time, in microseconds, goes to `us` when there is one.
void trainSteps(Ddp& ddp, const std::function<void()>& optimizer_step,
                const std::vector<fixtures::Batch>& batches, int first, int n,
                std::vector<double>* us);

// A fresh model (the same seed on every rank) and DDP over `group`, and SGD
// over it. `install` (if any) registers a comm hook before the first
// forward. Collective: every rank of `group` builds one.
struct Trainer {
  Trainer(const ModelRow& model, const Group& group,
          const std::function<void(Ddp&, const Group&)>& install = {});

  // trainSteps with an SGD step.
  void steps(const std::vector<fixtures::Batch>& batches, int first, int n,
             std::vector<double>* us);

  Ddp ddp;
  torch::optim::SGD sgd;
};

}  // namespace bench_common
