#pragma once

// What the ZeRO overlap hooks share across buckets and iterations: the
// buckets seen in this iteration, the warm-up, and once DDP's buckets are
// final, the bucket partition with an optimizer per owned piece.

#include <ATen/core/ivalue.h>
#include <torch/optim/optimizer.h>

#include <cstddef>
#include <map>
#include <memory>
#include <torch/csrc/distributed/c10d/reducer.hpp>
#include <vector>

#include "distalgo/ddp/grad_bucket.h"
#include "distalgo/zero/bucket_assignment.h"
#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "zero/internal/partial_step.h"

namespace distalgo::zero::internal {

// The prefix of the overlap hooks' error messages.
inline constexpr const char* kOverlapHook = "distalgo::zero overlap hook: ";

class OverlapState {
 public:
  // Use create().
  OverlapState(ZeroRedundancyOptimizer& zero, const c10d::Reducer& reducer,
               bool shard_buckets);
  // Constructs one and attaches it to `zero` (one hook per ZeRO, which then
  // counts it in its stateBytes()). Throws std::invalid_argument if `zero`
  // was not built with overlap_with_ddp, std::logic_error if another hook
  // drives it.
  static std::shared_ptr<OverlapState> create(ZeroRedundancyOptimizer& zero,
                                              const c10d::Reducer& reducer,
                                              bool shard_buckets);

  // Throws std::logic_error unless called from inside a backward pass: a
  // rank joined under DDP's Join runs the hook on its shadow buckets outside
  // backward, which the overlap does not support.
  static void checkInsideBackward();
  // Whether this iteration steps bucket by bucket (else it is a warm-up).
  bool overlapped() const { return !pieces_.empty(); }
  // Saves a bucket of this iteration and its reduction. During the warm-up,
  // the first bucket of an iteration queues its step at the end of backward
  // (the reducer numbers every bucket 0 in a static graph's first
  // iteration, so neither index nor isLast() tells the end). Once
  // overlapped, throws std::logic_error if the bucket differs from the one
  // the partition was built on.
  void record(ddp::GradBucket& bucket,
              c10::intrusive_ptr<c10::ivalue::Future> reduced);
  // Overlapped: steps this rank's pieces of bucket `b` (waiting for its
  // reduction) and issues every piece's broadcasts.
  void stepBucket(std::size_t b);
  // Waits for the broadcasts issued since the last call; the receivers'
  // parameters take their new values here.
  void waitForBroadcasts();
  // optimizerStateBytes over this rank's pieces' optimizers.
  std::int64_t stateBytes() const;

 private:
  // Warm-up, at the end of backward: a full ZeRO step on the reduced
  // gradients (greedy partition, local step, broadcasts). If DDP will not
  // rebuild its buckets any more, then builds the bucket partition from this
  // iteration's buckets and moves the optimizer state to it.
  void finishWarmUp();
  void buildBucketPartition(const std::vector<SeenBucket>& seen);

  ZeroRedundancyOptimizer& zero_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;  // zero_'s
  const c10d::Reducer& reducer_;
  bool shard_buckets_;
  std::vector<SeenBucket> seen_;  // this iteration's, by index
  // Set with the partition: the parameters of each bucket it was built on.
  std::vector<std::vector<const c10::TensorImpl*>> layout_;
  std::vector<BucketAssignment> pieces_;
  // This rank's pieces' optimizers, by bucket (one piece per rank at most).
  std::map<std::size_t, std::unique_ptr<torch::optim::Optimizer>> optimizers_;
  std::vector<PieceBroadcast> broadcasts_;
};

}  // namespace distalgo::zero::internal
