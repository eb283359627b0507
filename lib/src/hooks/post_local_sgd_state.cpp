#include "distalgo/hooks/post_local_sgd_state.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace distalgo::hooks {

PostLocalSgdState::PostLocalSgdState(PostLocalSgdOptions options,
                                     groups::SubgroupProvider subgroup)
    : options_(options), subgroup_(std::move(subgroup)) {
  if (options_.start_local_sgd_iter < 0) {
    throw std::invalid_argument(
        "distalgo::hooks::PostLocalSgdState: expected start_local_sgd_iter "
        ">= 0, got " +
        std::to_string(options_.start_local_sgd_iter));
  }
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
