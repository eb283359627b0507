#include "zero_parity.h"

#include <torch/optim/adagrad.h>
#include <torch/optim/adam.h>
#include <torch/optim/adamw.h>
#include <torch/optim/rmsprop.h>
#include <torch/optim/sgd.h>

namespace zero_suite {
namespace {

template <typename Optimizer, typename Options>
OptimizerCase makeCase(std::string name, const Options& defaults,
                       fixtures::Tolerance tolerance) {
  return {
      std::move(name), distalgo::zero::localOptimizer<Optimizer>(defaults),
      [defaults](double lr) -> std::unique_ptr<torch::optim::OptimizerOptions> {
        auto options = std::make_unique<Options>(defaults);
        options->lr(lr);
        return options;
      },
      tolerance};
}

}  // namespace

std::vector<OptimizerCase> optimizerCases() {
  namespace optim = torch::optim;
  // Every case runs the same kernels on the same inputs on the owner, so
  // all are in fact bit for bit; the adaptive ones keep a 1e-6 margin.
  constexpr fixtures::Tolerance kAdaptiveMargin{.atol = 1e-6};
  return {
      makeCase<optim::SGD>(
          "SGD", optim::SGDOptions(0.1).momentum(0.9).weight_decay(1e-3),
          fixtures::kExact),
      makeCase<optim::Adam>("Adam", optim::AdamOptions(1e-3), kAdaptiveMargin),
      makeCase<optim::AdamW>("AdamW", optim::AdamWOptions(1e-3),
                             kAdaptiveMargin),
      makeCase<optim::Adagrad>("Adagrad", optim::AdagradOptions(1e-2),
                               kAdaptiveMargin),
      makeCase<optim::RMSprop>("RMSprop", optim::RMSpropOptions(1e-3),
                               kAdaptiveMargin),
  };
}

torch::optim::OptimizerParamGroup firstLayer(torch::nn::Sequential& model,
                                             const OptimizerCase& optimizer) {
  auto params = model->parameters();  // w1, b1, w2, b2
  return {{params[0], params[1]}, optimizer.options(0.05)};
}

torch::optim::OptimizerParamGroup lastLayer(torch::nn::Sequential& model,
                                            const OptimizerCase& optimizer) {
  auto params = model->parameters();
  return {{params[2], params[3]}, optimizer.options(0.02)};
}

std::vector<torch::optim::OptimizerParamGroup> twoGroups(
    torch::nn::Sequential& model, const OptimizerCase& optimizer) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  groups.push_back(firstLayer(model, optimizer));
  groups.push_back(lastLayer(model, optimizer));
  return groups;
}

}  // namespace zero_suite
