// ZeroRedundancyOptimizer as a Joinable (PyTorch's _ZeROJoinHook): a joined
// rank still owns its shard, so it steps it and broadcasts it in every
// iteration the other ranks train.

#include <algorithm>

#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "internal/check.h"

namespace distalgo::zero {
namespace {

class ZeroJoinHook : public join::JoinHook {
 public:
  explicit ZeroJoinHook(ZeroRedundancyOptimizer& zero) : zero_(zero) {}
  // Steps on the gradients set on this rank: under DDP's join hook, which
  // runs first, the training ranks' average. step() sends no heartbeat here.
  void mainHook() override { zero_.step(); }

 private:
  ZeroRedundancyOptimizer& zero_;
};

}  // namespace

std::unique_ptr<join::JoinHook> ZeroRedundancyOptimizer::joinHook(
    const join::JoinArgs& /*args*/) {
  // A joined rank would have to shadow the hook's per-bucket steps.
  refuseUnderOverlap("Join");
  return std::make_unique<ZeroJoinHook>(*this);
}

c10::Device ZeroRedundancyOptimizer::joinDevice() const {
  // The first group may be empty; construction refuses no parameters.
  const auto group = std::find_if(groups_.begin(), groups_.end(),
                                  [](const auto& g) { return !g.empty(); });
  DISTALGO_CHECK_STATE(group != groups_.end(),
                       "distalgo::zero::ZeroRedundancyOptimizer has no "
                       "parameters");
  return group->front().device();
}

}  // namespace distalgo::zero
