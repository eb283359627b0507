#include "distalgo/zero/overlap.h"

#include <memory>

#include "internal/check.h"
#include "zero/internal/overlap_state.h"

namespace distalgo::zero::internal {
namespace {

using FuturePtr = c10::intrusive_ptr<c10::ivalue::Future>;

void waitAndRethrow(const FuturePtr& future) {
  future->wait();
  if (future->hasError()) std::rethrow_exception(future->exception_ptr());
}

ddp::CommHook afterLastBucket(ddp::CommHook hook,
                              std::shared_ptr<OverlapState> state) {
  return [hook = std::move(hook),
          state = std::move(state)](ddp::GradBucket& bucket) {
    OverlapState::checkInsideBackward();
    auto reduced = hook(bucket);
    state->record(bucket, reduced);
    if (!state->overlapped() || !bucket.isLast()) return reduced;
    // Issued here, on the autograd thread, in bucket order: the same order
    // on every rank.
    for (std::size_t b = 0; b <= bucket.index(); ++b) state->stepBucket(b);
    state->waitForBroadcasts();  // before the next forward reads them
    return reduced;
  };
}

ddp::CommHook interleaved(ddp::CommHook hook,
                          std::shared_ptr<OverlapState> state) {
  // The previous bucket's step, to wait for before issuing the next
  // reduction.
  auto previous = std::make_shared<FuturePtr>();
  return [hook = std::move(hook), state = std::move(state),
          previous](ddp::GradBucket& bucket) -> FuturePtr {
    OverlapState::checkInsideBackward();
    const bool overlapped = state->overlapped();
    if (overlapped && *previous) {
      waitAndRethrow(*previous);
      previous->reset();
    }
    auto reduced = hook(bucket);
    state->record(bucket, reduced);
    if (!overlapped) return reduced;
    const auto b = bucket.index();
    auto stepped = reduced->then(
        [state, b](c10::ivalue::Future& done) {
          c10::IValue value = done.value();  // rethrows a failed reduction
          state->stepBucket(b);
          return value;
        },
        reduced->elementType());
    if (!bucket.isLast()) {
      *previous = stepped;
      return stepped;
    }
    // The reducer's own collectives (find_unused_parameters) follow.
    waitAndRethrow(stepped);
    state->waitForBroadcasts();
    return stepped;
  };
}

}  // namespace

ddp::CommHook overlapHook(ddp::CommHook hook, const c10d::Reducer& reducer,
                          const c10d::ProcessGroup& ddp_group,
                          ZeroRedundancyOptimizer& zero, bool shard_buckets,
                          bool interleaved_steps) {
  DISTALGO_CHECK_ARG(hook, kOverlapHook, "no hook to wrap");
  DISTALGO_CHECK_ARG(ddp_group.getSize() == zero.worldSize() &&
                         ddp_group.getRank() == zero.rank(),
                     kOverlapHook, "DDP's group (rank ", ddp_group.getRank(),
                     " of ", ddp_group.getSize(),
                     ") differs from ZeRO's (rank ", zero.rank(), " of ",
                     zero.worldSize(), ")");
  auto state = OverlapState::create(zero, reducer, shard_buckets);
  return interleaved_steps ? interleaved(std::move(hook), std::move(state))
                           : afterLastBucket(std::move(hook), std::move(state));
}

}  // namespace distalgo::zero::internal
