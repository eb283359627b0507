#pragma once

// The state of the post-local SGD hook (PyTorch's PostLocalSGDState): when
// local SGD starts, whether gradients are still reduced within a subgroup
// afterwards, the subgroup, and the iteration counter. Holds no process
// group, so it can be built before one exists (the hook gets the global
// group when it is registered).

#include <atomic>
#include <cstdint>
#include <optional>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "distalgo/groups/subgroup_provider.h"

namespace distalgo::hooks {

// Post-local SGD's options, with PyTorch's defaults where it has one.
struct PostLocalSgdOptions {
  // Iterations of global gradient allreduce (plain DDP) before local SGD
  // starts (start_localSGD_iter). Required, as in PyTorch: 0 would skip the
  // global phase. Pair the hook with an averager whose warmup_steps equal it.
  std::optional<std::int64_t> start_local_sgd_iter;
  // After the start: allreduce gradients within the subgroup (true), or
  // keep each rank's own gradients (false).
  bool post_local_gradient_allreduce = true;
};

// Example (before any process group exists):
//   auto state = std::make_shared<PostLocalSgdState>(
//       PostLocalSgdOptions{.start_local_sgd_iter = 100});
class PostLocalSgdState {
 public:
  // `subgroup` gives the group gradients are reduced in after the start:
  // by default the node (see groups::SubgroupProvider), created on the
  // first local iteration. Throws std::invalid_argument if
  // options.start_local_sgd_iter is unset or < 0.
  explicit PostLocalSgdState(
      PostLocalSgdOptions options,
      groups::SubgroupProvider subgroup = groups::SubgroupProvider());

  const PostLocalSgdOptions& options() const { return options_; }

  // Completed iterations of global allreduce; stops counting at the start.
  std::int64_t iteration() const { return iteration_.load(); }
  // Whether the current iteration is local (iteration() reached the start).
  bool localSgdStarted() const {
    return iteration() >= *options_.start_local_sgd_iter;
  }
  // Counts an iteration at its last bucket (PyTorch's maybe_increase_iter).
  void maybeIncreaseIteration(bool is_last_bucket);

  // This rank's subgroup of `pg`, created on the first call (collective
  // over `pg`).
  c10::intrusive_ptr<c10d::ProcessGroup> subgroup(
      const c10::intrusive_ptr<c10d::Store>& store,
      const c10::intrusive_ptr<c10d::ProcessGroup>& pg);
  bool subgroupCreated() const { return subgroup_.created(); }

 private:
  PostLocalSgdOptions options_;
  groups::SubgroupProvider subgroup_;
  // Written by the hook on the autograd thread, read by the trainer.
  std::atomic<std::int64_t> iteration_{0};
};

}  // namespace distalgo::hooks
