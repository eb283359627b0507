#include "distalgo/averaging/model_averager.h"

#include <utility>

#include "distalgo/averaging/average_parameters.h"
#include "internal/check.h"

namespace distalgo::averaging {

ModelAverager::ModelAverager(c10::intrusive_ptr<c10d::ProcessGroup> pg)
    : pg_(std::move(pg)) {
  DISTALGO_CHECK_ARG(pg_,
                     "distalgo::averaging::ModelAverager: expected a process "
                     "group, got null");
}

void ModelAverager::averageParameters(const std::vector<at::Tensor>& params) {
  if (const auto group = groupAt(step_)) {
    distalgo::averaging::averageParameters(paramsToAverage(params), group);
  }
  ++step_;
}

void ModelAverager::averageParameters(
    const std::vector<torch::optim::OptimizerParamGroup>& groups) {
  if (const auto group = groupAt(step_)) {
    distalgo::averaging::averageParameters(groups, group);
  }
  ++step_;
}

}  // namespace distalgo::averaging
