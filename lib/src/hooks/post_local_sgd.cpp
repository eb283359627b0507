#include "distalgo/hooks/post_local_sgd.h"

#include <stdexcept>
#include <utility>

#include "distalgo/hooks/default_hooks.h"

namespace distalgo::hooks {
namespace {

constexpr const char* kPostLocalSgdHook = "distalgo::hooks::postLocalSgdHook: ";

}  // namespace

ddp::CommHook postLocalSgdHook(std::shared_ptr<PostLocalSgdState> state,
                               c10::intrusive_ptr<c10d::ProcessGroup> pg,
                               c10::intrusive_ptr<c10d::Store> store) {
  if (!state) {
    throw std::invalid_argument(std::string(kPostLocalSgdHook) +
                                "expected a state, got nullptr");
  }
  if (!pg) {
    throw std::invalid_argument(std::string(kPostLocalSgdHook) +
                                "expected a process group, got null");
  }
  if (!store && !state->subgroupCreated() &&
      state->options().post_local_gradient_allreduce) {
    throw std::invalid_argument(
        std::string(kPostLocalSgdHook) +
        "expected a store to create the subgroup with, got null");
  }
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
