#include "distalgo/averaging/model_averager.h"

#include <stdexcept>
#include <utility>

#include "distalgo/averaging/average_parameters.h"

namespace distalgo::averaging {

ModelAverager::ModelAverager(c10::intrusive_ptr<c10d::ProcessGroup> pg)
    : pg_(std::move(pg)) {
  if (!pg_) {
    throw std::invalid_argument(
        "distalgo::averaging::ModelAverager: expected a process group, got "
        "null");
  }
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
