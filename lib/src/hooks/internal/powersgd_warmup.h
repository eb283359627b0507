#pragma once

// What both PowerSGD hooks do before their start iteration: the plain
// allreduce hook, counting iterations; from then on, their own compression,
// its collectives in one order on every rank (issue_order.h).

#include <memory>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/powersgd_state.h"
#include "hooks/internal/issue_order.h"
#include "internal/check.h"

namespace distalgo::hooks::internal {

// Compresses one bucket: prepares on the calling thread and appends the
// bucket's chain of collectives to `order`; returns the bucket's future.
using Compress = c10::intrusive_ptr<c10::ivalue::Future> (*)(
    const std::shared_ptr<PowerSgdState>& state, IssueOrder& order,
    ddp::GradBucket& bucket);

// `hook` names the caller in errors.
inline ddp::CommHook allreduceUntilStart(std::shared_ptr<PowerSgdState> state,
                                         Compress compress, const char* hook) {
  DISTALGO_CHECK_ARG(state, "distalgo::hooks::", hook,
                     ": expected a state, got nullptr");
  DISTALGO_CHECK_ARG(state->processGroup(), "distalgo::hooks::", hook,
                     ": expected a state with a process group, got null");
  ddp::CommHook allreduce = allreduceHook(state->processGroup());
  return [state = std::move(state), allreduce = std::move(allreduce), compress,
          order = std::make_shared<IssueOrder>()](ddp::GradBucket& bucket) {
    if (!state->compressing()) {
      state->maybeIncreaseIteration(bucket.isLast());
      return allreduce(bucket);
    }
    if (bucket.index() == 0) order->restartIfIdle();
    auto future = compress(state, *order, bucket);
    // After the last bucket the reducer (find_unused_parameters) or a
    // wrapper (ZeRO's overlap) may issue collectives of its own, on this
    // thread: every chain must have issued before them.
    if (bucket.isLast()) order->waitUntilIssued();
    return future;
  };
}

}  // namespace distalgo::hooks::internal
