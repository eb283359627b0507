#pragma once

// The base of the model averagers (PyTorch's averagers.ModelAverager): a step
// counter and a process group. An averager runs after the optimizer step; the
// post-local SGD optimizer takes any averager.

#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

namespace distalgo::averaging {

class ModelAverager {
 public:
  explicit ModelAverager(c10::intrusive_ptr<c10d::ProcessGroup> pg);
  virtual ~ModelAverager() = default;

  // One training step: averages the parameters that have a gradient when
  // groupAt(step()) says so (collective over that group), then advances
  // step(). Parameters are updated in place.
  void averageParameters(const std::vector<at::Tensor>& params);
  void averageParameters(
      const std::vector<torch::optim::OptimizerParamGroup>& groups);

  // Calls to averageParameters so far; restored from a checkpoint with
  // setStep so that a resumed run averages on the same steps.
  std::int64_t step() const { return step_; }
  void setStep(std::int64_t step) { step_ = step; }

  const c10::intrusive_ptr<c10d::ProcessGroup>& processGroup() const {
    return pg_;
  }

 protected:
  // The group to average over at `step`, or null for no averaging.
  virtual c10::intrusive_ptr<c10d::ProcessGroup> groupAt(
      std::int64_t step) const = 0;

 private:
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  std::int64_t step_ = 0;
};

}  // namespace distalgo::averaging
