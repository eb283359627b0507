#include "distalgo/optim/post_local_sgd_optimizer.h"

#include <c10/util/Exception.h>
#include <torch/serialize/input-archive.h>
#include <torch/serialize/output-archive.h>

#include <sstream>
#include <utility>

#include "internal/check.h"
#include "torch_compat/zero_grad.h"

namespace distalgo::optim {
namespace {

constexpr const char* kPostLocalSgdOptimizer =
    "distalgo::optim::PostLocalSgdOptimizer: ";
constexpr const char* kStepKey = "step";

// A shared_ptr that does not own `object`.
template <typename T>
std::shared_ptr<T> borrowed(T& object) {
  return std::shared_ptr<T>(std::shared_ptr<T>(), &object);
}

}  // namespace

PostLocalSgdOptimizer::PostLocalSgdOptimizer(
    std::shared_ptr<torch::optim::Optimizer> optimizer,
    std::shared_ptr<averaging::ModelAverager> averager)
    : optimizer_(std::move(optimizer)), averager_(std::move(averager)) {
  DISTALGO_CHECK_ARG(optimizer_, kPostLocalSgdOptimizer,
                     "expected an optimizer, got nullptr");
  DISTALGO_CHECK_ARG(averager_, kPostLocalSgdOptimizer,
                     "expected an averager, got nullptr");
}

PostLocalSgdOptimizer::PostLocalSgdOptimizer(torch::optim::Optimizer& optimizer,
                                             averaging::ModelAverager& averager)
    : PostLocalSgdOptimizer(borrowed(optimizer), borrowed(averager)) {}

void PostLocalSgdOptimizer::step() {
  optimizer_->step();
  averager_->averageParameters(optimizer_->param_groups());
}

void PostLocalSgdOptimizer::zeroGrad(bool set_to_none) {
  torch_compat::zeroGrad(*optimizer_, set_to_none);
}

void PostLocalSgdOptimizer::addParamGroup(
    const torch::optim::OptimizerParamGroup& group) {
  optimizer_->add_param_group(group);
}

std::vector<torch::optim::OptimizerParamGroup>&
PostLocalSgdOptimizer::paramGroups() {
  return optimizer_->param_groups();
}

std::string PostLocalSgdOptimizer::stateDict() const {
  torch::serialize::OutputArchive archive;
  optimizer_->save(archive);
  archive.write(kStepKey, c10::IValue(averager_->step()));
  std::ostringstream bytes;
  archive.save_to(bytes);
  return bytes.str();
}

void PostLocalSgdOptimizer::loadStateDict(const std::string& state) {
  torch::serialize::InputArchive archive;
  try {
    std::istringstream bytes(state);
    archive.load_from(bytes);
  } catch (const c10::Error& e) {
    DISTALGO_CHECK_ARG(
        false, kPostLocalSgdOptimizer,
        "expected an optimizer archive: ", e.what_without_backtrace());
  }
  optimizer_->load(archive);
  c10::IValue step;
  if (archive.try_read(kStepKey, step)) {
    averager_->setStep(step.toInt());
  } else {
    TORCH_WARN(
        "Loaded state dict does not contain a step counter for an averager. "
        "Setting step counter to 0.");
    averager_->setStep(0);
  }
}

}  // namespace distalgo::optim
