#pragma once

// Overlapping ZeRO's optimizer step with DDP's backward (PyTorch's
// hook_with_zero_step and hook_with_zero_step_interleaved): a DDP
// communication hook runs a wrapped hook (e.g. allreduce) and steps a
// ZeroRedundancyOptimizer built with ZeroOptions::overlap_with_ddp, so the
// training loop calls no step().
//
// Example:
//   ZeroRedundancyOptimizer zero(model->parameters(), pg, factory,
//                                {.overlap_with_ddp = true});
//   ddp.registerCommHook(distalgo::zero::hookWithZeroStep(
//       distalgo::hooks::allreduceHook(pg), ddp, zero));
//   for (...) { zeroGradients(*model); loss(ddp.forward(x)).backward(); }
//
// Warm-up: every iteration is a real step. Until DDP's reducer has rebuilt
// its buckets (at the forward after the first iteration that reduced; after
// the second with static_graph; never with find_unused_parameters without
// static_graph), the
// hook queues at the iteration's first bucket a full ZeRO step that runs
// when backward ends, on the reduced gradients: greedy partition, local
// step, broadcasts, as step() would. At the end of the first iteration
// whose buckets are final (iteration 1 by default, 2 with static_graph, 0
// with find_unused_parameters alone) it then builds the bucket partition
// (bucket_assignment.h) from that iteration's buckets and moves each
// parameter's optimizer state to its bucket owner (a collective); from the
// next iteration on each bucket is stepped by its owner and broadcast.
// Results equal DDP plus ZeRO's step() in every iteration, warm-up included.
//
// Differences from PyTorch: no vacuous iterations; works on Gloo; several
// parameter groups keep their options; localOptimizer() keeps holding the
// options (changes apply to the next step). A parameter no rank used under
// find_unused_parameters is stepped with a zero gradient, as in PyTorch.
// ZeRO parameters outside DDP's buckets (frozen) are not stepped.

#include <torch/csrc/distributed/c10d/reducer.hpp>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/zero/zero_redundancy_optimizer.h"

namespace distalgo::zero {
namespace internal {

ddp::CommHook overlapHook(ddp::CommHook hook, const c10d::Reducer& reducer,
                          const c10d::ProcessGroup& ddp_group,
                          ZeroRedundancyOptimizer& zero, bool shard_buckets,
                          bool interleaved);

}  // namespace internal

// Runs `hook` on every bucket; after the last bucket's hook, waits for each
// bucket's reduction in order, steps the pieces this rank owns and
// broadcasts every piece. `shard_buckets`: false gives each bucket to one
// rank, true cuts buckets into pieces over the ranks (bucket_assignment.h).
// `ddp` (a DistributedDataParallel) tells when its buckets are final; it
// and `zero` must outlive the hook, which is for `ddp` only. Throws
// std::invalid_argument if `zero` lacks overlap_with_ddp or its group differs
// from DDP's, std::logic_error if a hook already drives `zero`.
template <typename Ddp>
// NOLINTNEXTLINE(performance-unnecessary-value-param): moved below
ddp::CommHook hookWithZeroStep(ddp::CommHook hook, Ddp& ddp,
                               ZeroRedundancyOptimizer& zero,
                               bool shard_buckets = false) {
  return internal::overlapHook(std::move(hook), ddp.reducer(),
                               *ddp.joinProcessGroup(), zero, shard_buckets,
                               /*interleaved=*/false);
}

// As hookWithZeroStep, but each bucket's pieces are stepped and broadcast as
// soon as its reduction completes, in a callback of the wrapped hook's
// future, while backward goes on. Works on Gloo, where the callbacks'
// broadcasts would otherwise interleave differently with the next buckets'
// reductions on each rank: bucket b + 1's hook waits until bucket b's
// callback has issued its broadcasts before it runs the wrapped hook, and the
// last bucket's hook waits for its own callback, so every rank issues
// reduce(0), broadcasts(0), reduce(1), broadcasts(1), ... in that order. The
// price: backward pauses at bucket b + 1 until bucket b is reduced.
template <typename Ddp>
// NOLINTNEXTLINE(performance-unnecessary-value-param): moved below
ddp::CommHook hookWithZeroStepInterleaved(ddp::CommHook hook, Ddp& ddp,
                                          ZeroRedundancyOptimizer& zero,
                                          bool shard_buckets = false) {
  return internal::overlapHook(std::move(hook), ddp.reducer(),
                               *ddp.joinProcessGroup(), zero, shard_buckets,
                               /*interleaved=*/true);
}

}  // namespace distalgo::zero
