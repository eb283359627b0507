#include "distalgo/averaging/average_parameters.h"

#include <ATen/ATen.h>

#include <cstdint>

namespace distalgo::averaging {

void averageParameters(const std::vector<at::Tensor>& params,
                       const c10::intrusive_ptr<c10d::ProcessGroup>& pg) {
  if (!pg || params.empty()) return;
  std::vector<at::Tensor> flat_views;
  flat_views.reserve(params.size());
  for (const auto& p : params) flat_views.push_back(p.detach().reshape(-1));
  // Dividing before the sum, as PyTorch does, keeps large values finite.
  auto flat = at::cat(flat_views).div_(pg->getSize());
  std::vector<at::Tensor> buffer{flat};
  pg->allreduce(buffer)->wait();
  std::int64_t offset = 0;
  for (const auto& p : params) {
    const auto n = p.numel();
    p.detach().copy_(flat.slice(0, offset, offset + n).view(p.sizes()));
    offset += n;
  }
}

void averageParameters(
    const std::vector<torch::optim::OptimizerParamGroup>& groups,
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg) {
  averageParameters(paramsToAverage(groups), pg);
}

std::vector<at::Tensor> paramsToAverage(const std::vector<at::Tensor>& params) {
  std::vector<at::Tensor> with_grad;
  for (const auto& p : params) {
    if (p.grad().defined()) with_grad.push_back(p);
  }
  return with_grad;
}

std::vector<at::Tensor> paramsToAverage(
    const std::vector<torch::optim::OptimizerParamGroup>& groups) {
  std::vector<at::Tensor> params;
  for (const auto& group : groups) {
    const auto& group_params = group.params();
    params.insert(params.end(), group_params.begin(), group_params.end());
  }
  return paramsToAverage(params);
}

}  // namespace distalgo::averaging
