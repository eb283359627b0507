#pragma once

// PyTorch's PostLocalSGDOptimizer: a libtorch optimizer followed by a model
// averager, so that local SGD is one step() call. Pair it with the post-local
// SGD hook; the averager's warm-up should equal the hook's
// start_local_sgd_iter.
//
// Example:
//   auto sgd = std::make_shared<torch::optim::SGD>(model->parameters(),
//                                                  torch::optim::SGDOptions(0.1));
//   auto averager = std::make_shared<averaging::PeriodicModelAverager>(
//       pg, /*period=*/4, /*warmup_steps=*/100);
//   PostLocalSgdOptimizer optimizer(sgd, averager);
//   for (...) { /* forward, backward */ optimizer.step(); }

#include <torch/optim/optimizer.h>

#include <memory>
#include <string>
#include <vector>

#include "distalgo/averaging/model_averager.h"

namespace distalgo::optim {

class PostLocalSgdOptimizer {
 public:
  // Shares both. Throws std::invalid_argument if either is null.
  PostLocalSgdOptimizer(std::shared_ptr<torch::optim::Optimizer> optimizer,
                        std::shared_ptr<averaging::ModelAverager> averager);
  // Refers to both, which must outlive this object.
  PostLocalSgdOptimizer(torch::optim::Optimizer& optimizer,
                        averaging::ModelAverager& averager);

  // The optimizer's step, then the averager's over the optimizer's param
  // groups (parameters without a gradient are not averaged). Collective
  // over the averager's group on the steps it averages.
  void step();
  // The optimizer's zero_grad: zeroes the gradients in place (libtorch's
  // detaches them: under DDP's gradient_as_bucket_view use
  // ddp::zeroGradients instead), or drops them with `set_to_none`, as
  // PyTorch 2.x's zero_grad() does by default. The same on every libtorch.
  void zeroGrad(bool set_to_none = false);
  void addParamGroup(const torch::optim::OptimizerParamGroup& group);

  std::vector<torch::optim::OptimizerParamGroup>& paramGroups();
  torch::optim::Optimizer& optimizer() { return *optimizer_; }
  averaging::ModelAverager& averager() { return *averager_; }

  // The optimizer's archive (what torch::save writes for it) plus a "step"
  // entry holding the averager's step, serialized: a run restored from it
  // continues exactly, averaging on the same steps.
  std::string stateDict() const;
  // Restores the optimizer and the averager's step from stateDict(). An
  // archive without "step" (a plain optimizer's) sets the step to 0 with a
  // warning, as PyTorch does. Throws std::invalid_argument for bytes that are
  // no archive.
  void loadStateDict(const std::string& state);

 private:
  std::shared_ptr<torch::optim::Optimizer> optimizer_;
  std::shared_ptr<averaging::ModelAverager> averager_;
};

}  // namespace distalgo::optim
