#pragma once

// ZeRO stage 1 (PyTorch's ZeroRedundancyOptimizer): every rank keeps the
// optimizer state of its own shard of the parameters only, steps that shard
// and broadcasts it, so the state costs about 1/W per rank.
//
// Example:
//   distalgo::zero::ZeroRedundancyOptimizer zero(
//       model->parameters(), pg(),
//       distalgo::zero::localOptimizer<torch::optim::Adam>(
//           torch::optim::AdamOptions(1e-3)));
//   ddp.forward(x).sum().backward();
//   zero.step();  // every rank ends with the same updated parameters

#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include <functional>
#include <memory>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <utility>
#include <vector>

#include "distalgo/zero/partition.h"

namespace distalgo::zero {

// Builds the local optimizer over this rank's shard. It receives one group
// per global group, in order, with that group's options (possibly no
// parameters).
using LocalOptimizerFactory =
    std::function<std::unique_ptr<torch::optim::Optimizer>(
        std::vector<torch::optim::OptimizerParamGroup>)>;

// A factory for any libtorch optimizer type: groups without options of their
// own get `defaults`.
template <typename Optimizer, typename Options>
LocalOptimizerFactory localOptimizer(Options defaults) {
  return [defaults](std::vector<torch::optim::OptimizerParamGroup> groups)
             -> std::unique_ptr<torch::optim::Optimizer> {
    return std::make_unique<Optimizer>(std::move(groups), defaults);
  };
}

class ZeroRedundancyOptimizer {
 public:
  // Partitions the groups' parameters over the ranks of `pg` and builds the
  // local optimizer over this rank's shard. Throws std::invalid_argument on
  // no parameters, an undefined one, or one in two groups. Every rank must
  // pass the same parameters in the same order.
  ZeroRedundancyOptimizer(
      const std::vector<torch::optim::OptimizerParamGroup>& groups,
      c10::intrusive_ptr<c10d::ProcessGroup> pg, LocalOptimizerFactory factory);
  // One group with the local optimizer's defaults.
  ZeroRedundancyOptimizer(const std::vector<at::Tensor>& parameters,
                          c10::intrusive_ptr<c10d::ProcessGroup> pg,
                          LocalOptimizerFactory factory);

  // Steps the local optimizer (with `closure` if given), then every rank
  // broadcasts its updated shard. Collective. Returns the closure's loss, or
  // an undefined tensor without closure.
  at::Tensor step(torch::optim::Optimizer::LossClosure closure = nullptr);

  // The optimizer over this rank's shard: its groups match the global ones
  // by index, so options such as the learning rate can be changed there.
  torch::optim::Optimizer& localOptimizer() { return *local_; }
  const torch::optim::Optimizer& localOptimizer() const { return *local_; }

  // Per rank, the (group, parameter) pairs it owns.
  const std::vector<std::vector<ShardEntry>>& partition() const {
    return partition_;
  }
  int rank() const { return rank_; }
  int worldSize() const { return world_size_; }

 private:
  // Every parameter with its owner, in global order (groups, then their
  // parameters): the broadcast order, identical on every rank.
  struct Owned {
    at::Tensor parameter;
    int owner;
  };

  void broadcastShards();

  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  int rank_;
  int world_size_;
  std::vector<std::vector<ShardEntry>> partition_;
  std::vector<Owned> owned_;
  std::unique_ptr<torch::optim::Optimizer> local_;
};

}  // namespace distalgo::zero
