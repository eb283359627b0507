#include "distalgo/hooks/post_local_sgd_state.h"

#include <utility>

#include "internal/check.h"

namespace distalgo::hooks {

PostLocalSgdState::PostLocalSgdState(PostLocalSgdOptions options,
                                     groups::SubgroupProvider subgroup)
    : options_(options), subgroup_(std::move(subgroup)) {
  DISTALGO_CHECK_ARG(options_.start_local_sgd_iter.has_value(),
                     "distalgo::hooks::PostLocalSgdState: "
                     "start_local_sgd_iter is required (PyTorch's "
                     "start_localSGD_iter has no default): the iterations of "
                     "global allreduce before local SGD starts");
  DISTALGO_CHECK_ARG(*options_.start_local_sgd_iter >= 0,
                     "distalgo::hooks::PostLocalSgdState: expected "
                     "start_local_sgd_iter >= 0, got ",
                     *options_.start_local_sgd_iter);
}

void PostLocalSgdState::maybeIncreaseIteration(bool is_last_bucket) {
  if (is_last_bucket) ++iteration_;
}

c10::intrusive_ptr<c10d::ProcessGroup> PostLocalSgdState::subgroup(
    const c10::intrusive_ptr<c10d::Store>& store,
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg) {
  return subgroup_.get(store, pg);
}

}  // namespace distalgo::hooks
