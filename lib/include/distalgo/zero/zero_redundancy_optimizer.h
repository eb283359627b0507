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

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <utility>
#include <vector>

#include "distalgo/join/joinable.h"
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
LocalOptimizerFactory localOptimizer(const Options& defaults) {
  return [defaults](std::vector<torch::optim::OptimizerParamGroup> groups)
             -> std::unique_ptr<torch::optim::Optimizer> {
    return std::make_unique<Optimizer>(std::move(groups), defaults);
  };
}

struct ZeroOptions {
  // Parameters become views into one flat buffer per rank, device and dtype,
  // so a step broadcasts one buffer per rank instead of one tensor per
  // parameter (PyTorch's parameters_as_bucket_view). The parameters keep
  // their identity (their data moves), so DDP and other holders still see
  // them.
  bool parameters_as_bucket_view = false;
  // A DDP communication hook from overlap.h steps the optimizer inside DDP's
  // backward (PyTorch's overlap_with_ddp): step(), addParamGroup(), Join,
  // consolidateStateDict() and loadStateDict() then throw std::logic_error.
  // Not with parameters_as_bucket_view.
  bool overlap_with_ddp = false;
};

namespace internal {
class OverlapState;
}  // namespace internal

// A Joinable (zero_join.cpp): under a distalgo::join::Join, a rank that ran
// out of inputs keeps stepping its shard and broadcasting it, with the
// gradients DDP's join hook wrote (the training ranks' average).
class ZeroRedundancyOptimizer : public join::Joinable {
 public:
  // Collective. Partitions the groups' parameters over the ranks of `pg` and
  // builds the local optimizer over this rank's shard. Throws
  // std::invalid_argument, on every rank where the ranks disagree, on no
  // parameters, an undefined one, one in two groups, or ranks whose
  // parameters (count, shapes, dtypes, groups) differ.
  ZeroRedundancyOptimizer(
      const std::vector<torch::optim::OptimizerParamGroup>& groups,
      c10::intrusive_ptr<c10d::ProcessGroup> pg, LocalOptimizerFactory factory,
      ZeroOptions options = {});
  // One group with the local optimizer's defaults.
  ZeroRedundancyOptimizer(const std::vector<at::Tensor>& parameters,
                          c10::intrusive_ptr<c10d::ProcessGroup> pg,
                          LocalOptimizerFactory factory,
                          ZeroOptions options = {});

  // Collective: every rank adds the same group. Appends it and re-partitions;
  // earlier groups keep their owners (the greedy rule assigns group by
  // group), so the local optimizer keeps its state and options and gains
  // this rank's part of the new group, with the group's options (or the
  // local optimizer's defaults). It is rebuilt with the factory, so it works
  // for optimizers such as Adagrad whose libtorch add_param_group cannot.
  // With parameters_as_bucket_view the buffers are rebuilt. Throws
  // std::invalid_argument on an undefined parameter or one already present.
  void addParamGroup(const torch::optim::OptimizerParamGroup& group);

  // Steps the local optimizer (with `closure` if given), then every rank
  // broadcasts its updated shard. Collective. Returns the closure's loss, or
  // an undefined tensor without closure. With overlap_with_ddp the DDP hook
  // steps and this throws std::logic_error.
  at::Tensor step(torch::optim::Optimizer::LossClosure closure = nullptr);

  // The optimizer over this rank's shard: its groups match the global ones
  // by index, so options such as the learning rate can be changed there.
  // With overlap_with_ddp, once the hook has built its bucket partition it
  // keeps the options only (the state moves to per-bucket optimizers).
  torch::optim::Optimizer& localOptimizer() { return *local_; }
  const torch::optim::Optimizer& localOptimizer() const { return *local_; }

  // Per rank, the (group, parameter) pairs it owns.
  const std::vector<std::vector<ShardEntry>>& partition() const {
    return partition_;
  }
  int rank() const { return rank_; }
  int worldSize() const { return world_size_; }
  // The bytes of this rank's optimizer state (optimizerStateBytes of the
  // local optimizer, and under overlap of the hook's per-bucket ones): what
  // sharding saves, measured.
  std::int64_t stateBytes() const;

  // Built with overlap_with_ddp: a hook from overlap.h steps it.
  bool overlapWithDdp() const { return options_.overlap_with_ddp; }

  // State dict (zero_state_dict.cpp), in the local optimizer's own libtorch
  // archive format: what torch::save writes for a plain optimizer of the
  // same type over the same groups, so torch::load of such an optimizer
  // reads it (libtorch maps states to parameters by position).
  //
  // Example:
  //   zero.consolidateStateDict(/*to=*/0);
  //   if (zero.rank() == 0) save(zero.stateDict());
  //   ...
  //   zero.loadStateDict(saved);  // on any rank, any world size

  // Collective. Gathers every rank's shard of the state onto rank `to`'s
  // CPU, with `to`'s group options. Throws std::invalid_argument on every rank,
  // before any collective, if `to` is not in [0, worldSize()).
  void consolidateStateDict(int to = 0);
  // On the rank that consolidated: the full state, on the CPU (a plain
  // optimizer on a GPU loads it with torch::load(optimizer, stream, device):
  // libtorch's load moves nothing). Throws std::logic_error
  // on other ranks, and if step(), addParamGroup() or loadStateDict() ran
  // since the consolidation.
  std::string stateDict() const;
  // Not collective. Takes a full state (stateDict(), or torch::save of a
  // plain optimizer of the same type over the same groups), keeps this
  // rank's shard of it, each state on its parameter's device, and every
  // group's options (such as lr). Throws
  // std::invalid_argument, changing nothing, on bytes that are no optimizer
  // archive or whose groups, parameter counts or state sizes differ.
  void loadStateDict(const std::string& state);

  // Joinable. The hook's main hook is step(); it reads no join arguments.
  // ZeRO acts at the optimizer step, after DDP's forward and backward.
  std::unique_ptr<join::JoinHook> joinHook(const join::JoinArgs& args) override;
  c10::Device joinDevice() const override;
  c10::intrusive_ptr<c10d::ProcessGroup> joinProcessGroup() const override {
    return pg_;
  }
  join::IterationStage joinStage() const override {
    return join::IterationStage::kOptimizerStep;
  }

  // What the overlap hooks (overlap.h) need to step this optimizer from
  // DDP's backward, behind a key that only their internal::OverlapState can
  // make (the passkey idiom), so no one else calls these members.
  class OverlapKey {
    friend class internal::OverlapState;
    OverlapKey() = default;
  };
  // Lets `hook_state` drive this optimizer from now on; false, changing
  // nothing, if another hook's state ever did (one hook per optimizer).
  // stateBytes() then adds the bytes of `hook_state` while it lives.
  bool attachOverlap(OverlapKey key,
                     std::weak_ptr<internal::OverlapState> hook_state);
  // The factory the local optimizer was built with, for the hook's
  // per-bucket optimizers.
  const LocalOptimizerFactory& localOptimizerFactory(OverlapKey key) const {
    return factory_;
  }
  // The second half of step(): collective, every rank broadcasts its shard.
  void broadcastShards(OverlapKey key) { broadcastShards(); }

 private:
  // A tensor its owner broadcasts after each step: a parameter, or with
  // parameters_as_bucket_view a rank's flat buffer.
  struct Broadcast {
    at::Tensor tensor;
    int owner;
  };

  // Checks groups_ on every rank, then (re)computes partition_ and
  // broadcasts_ for groups_.
  void repartition();
  void buildBucketViews();
  void broadcastShards();
  // Throws std::logic_error naming `what` if overlap_with_ddp is set.
  void refuseUnderOverlap(const char* what) const;

  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  int rank_;
  int world_size_;
  ZeroOptions options_;
  std::vector<std::vector<at::Tensor>> groups_;  // every rank's, in order
  std::vector<std::vector<ShardEntry>> partition_;
  // Identical order on every rank, which keeps the broadcasts matched.
  std::vector<Broadcast> broadcasts_;
  LocalOptimizerFactory factory_;
  std::unique_ptr<torch::optim::Optimizer> local_;

  // Bumped by every change of the state, so a consolidation knows it is
  // stale.
  std::uint64_t state_version_ = 0;
  struct Consolidated {
    std::uint64_t version;
    std::string bytes;
  };
  std::optional<Consolidated> consolidated_;  // on the `to` rank only
  bool overlap_hooked_ = false;  // a hook from overlap.h drives this
  // That hook's state (it owns it), for stateBytes().
  std::weak_ptr<internal::OverlapState> overlap_state_;
};

}  // namespace distalgo::zero
