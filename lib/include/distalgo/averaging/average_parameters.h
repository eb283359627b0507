#pragma once

// Averaging parameters over a process group, as PyTorch's
// model_averaging/utils.py: one flat buffer, one allreduce.

#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

namespace distalgo::averaging {

// Replaces every tensor of `params` in place (same storage, so optimizers and
// DDP keep holding it) by its mean over `pg`: the tensors are flattened into
// one buffer (mixed dtypes are promoted, then cast back), divided by the
// group's size and allreduced once. Collective over `pg`; a null `pg` (a rank
// outside a subgroup, see groups::newGroup) leaves `params` unchanged.
// Averages every tensor, with or without a gradient, as PyTorch's
// average_parameters does.
void averageParameters(const std::vector<at::Tensor>& params,
                       const c10::intrusive_ptr<c10d::ProcessGroup>& pg);

// The parameters of `groups` that have a gradient, averaged as above: PyTorch
// averages optimizer parameter groups only through get_params_to_average,
// which drops parameters whose grad is None.
void averageParameters(
    const std::vector<torch::optim::OptimizerParamGroup>& groups,
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg);

// PyTorch's get_params_to_average: the tensors that have a gradient, in order.
std::vector<at::Tensor> paramsToAverage(const std::vector<at::Tensor>& params);
std::vector<at::Tensor> paramsToAverage(
    const std::vector<torch::optim::OptimizerParamGroup>& groups);

}  // namespace distalgo::averaging
