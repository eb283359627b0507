#include "distalgo/hooks/post_local_sgd.h"

#include <utility>

#include "distalgo/hooks/default_hooks.h"
#include "internal/check.h"

namespace distalgo::hooks {
namespace {

constexpr const char* kPostLocalSgdHook = "distalgo::hooks::postLocalSgdHook: ";

}  // namespace

ddp::CommHook postLocalSgdHook(std::shared_ptr<PostLocalSgdState> state,
                               c10::intrusive_ptr<c10d::ProcessGroup> pg,
                               c10::intrusive_ptr<c10d::Store> store) {
  DISTALGO_CHECK_ARG(state, kPostLocalSgdHook, "expected a state, got nullptr");
  DISTALGO_CHECK_ARG(pg, kPostLocalSgdHook,
                     "expected a process group, got null");
  // Only a hook that will create the subgroup needs the store.
  DISTALGO_CHECK_ARG(store || state->subgroupCreated() ||
                         !state->options().post_local_gradient_allreduce,
                     kPostLocalSgdHook,
                     "expected a store to create the subgroup with, got null");
  // The subgroup's hook, built at the first local bucket.
  auto local = std::make_shared<ddp::CommHook>();
  ddp::CommHook global = allreduceHook(pg);
  return [state = std::move(state), global = std::move(global),
          keep = noopHook(), pg = std::move(pg), store = std::move(store),
          local](ddp::GradBucket& bucket) {
    if (!state->localSgdStarted()) {
      state->maybeIncreaseIteration(bucket.isLast());
      return global(bucket);
    }
    if (!state->options().post_local_gradient_allreduce) {
      return keep(bucket);
    }
    if (!*local) *local = allreduceHook(state->subgroup(store, pg));
    return (*local)(bucket);
  };
}

}  // namespace distalgo::hooks
