#pragma once

// What both PowerSGD hooks do before their start iteration: the plain
// allreduce hook, counting iterations; from then on, their own compression.

#include <memory>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/powersgd_state.h"

namespace distalgo::hooks::internal {

using Compress = c10::intrusive_ptr<c10::ivalue::Future> (*)(
    std::shared_ptr<PowerSgdState> state, ddp::GradBucket& bucket);

inline ddp::CommHook allreduceUntilStart(std::shared_ptr<PowerSgdState> state,
                                         Compress compress) {
  ddp::CommHook allreduce = allreduceHook(state->processGroup());
  return [state = std::move(state), allreduce = std::move(allreduce),
          compress](ddp::GradBucket& bucket) {
    if (!state->compressing()) {
      state->maybeIncreaseIteration(bucket.isLast());
      return allreduce(bucket);
    }
    return compress(state, bucket);
  };
}

}  // namespace distalgo::hooks::internal
