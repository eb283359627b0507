// Forward outputs whose tensors are nested (a vector in a tuple, an LSTM's
// tuple<Tensor, tuple<Tensor, Tensor>>): DDP finds them all, as PyTorch's
// _find_tensors does, so that find_unused_parameters sees what backward
// reaches, static_graph's sink delays the first reduction, and a loss that
// reaches only a nested tensor counts as backward.

#include <ATen/ATen.h>
#include <c10/util/Optional.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ddp_parity.h"
#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/training.h"

namespace ddpparity {
namespace {

using distalgo::ddp::DdpOptions;
using distalgo::ddp::DistributedDataParallel;
// c10::optional is std::optional on 2.x, a class of its own on 1.13.
using Output = std::tuple<at::Tensor, std::pair<int, std::vector<at::Tensor>>,
                          std::optional<at::Tensor>, c10::optional<at::Tensor>>;

// Two heads: `top` alone is the output's top-level tensor; `nested` (plus a
// second call of `top`) is only in a vector inside it, so that a loss
// through it alone reaches every parameter but no top-level tensor. The
// optional tensors are left empty.
struct TwoHeadNetImpl : torch::nn::Module {
  explicit TwoHeadNetImpl(std::uint64_t seed) {
    at::manual_seed(seed);
    top = register_module(
        "top", torch::nn::Linear(fixtures::kMlpInputs, fixtures::kMlpOutputs));
    nested = register_module(
        "nested",
        torch::nn::Linear(fixtures::kMlpInputs, fixtures::kMlpOutputs));
  }
  Output forward(const at::Tensor& x) {
    return {top(x), {1, {nested(x) + top(x)}}, std::nullopt, c10::nullopt};
  }
  torch::nn::Linear top{nullptr};
  torch::nn::Linear nested{nullptr};
};
TORCH_MODULE(TwoHeadNet);

struct NestedCase {
  std::string name;
  DdpOptions options;
  bool loss_through_top = true;  // else through the nested head alone
};

class DdpNestedOutputs : public ranktest::DistributedTestWithParam<NestedCase> {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 3}}; }
  static std::string paramName(const NestedCase& row, std::size_t) {
    return row.name;
  }

 protected:
  at::Tensor loss(const Output& output, int step, int r) const {
    const auto b = batch(step, r);
    at::Tensor value = torch::nn::functional::mse_loss(
        std::get<1>(output).second.at(0), b.target);
    if (param().loss_through_top) {
      value = value +
              torch::nn::functional::mse_loss(std::get<0>(output), b.target);
    }
    return value;
  }
};

// Past the rebuild of the buckets (after the second iteration with
// static_graph), against one process averaging every rank's loss.
RANKTEST_P(DdpNestedOutputs, TrainsLikeOneProcess) {
  TwoHeadNet model(rank() == 0 ? 1 : 2);
  DistributedDataParallel ddp(model, pg(), param().options);
  TwoHeadNet reference(1);
  for (int step = 0; step < kSteps; ++step) {
    fixtures::zeroGrads(model->parameters());
    loss(ddp.forward(batch(step, rank()).input), step, rank()).backward();
    fixtures::sgdUpdate(model->parameters(), kLearningRate);

    fixtures::zeroGrads(reference->parameters());
    for (int r = 0; r < worldSize(); ++r) {
      (loss(reference->forward(batch(step, r).input), step, r) / worldSize())
          .backward();
    }
    fixtures::sgdUpdate(reference->parameters(), kLearningRate);
  }
  fixtures::expectSameParameters(*model, *reference, kTolerance);
}

const std::vector<NestedCase> kNestedCases = {
    {"Default", {}},
    {"DefaultLossThroughNestedOnly", {}, /*loss_through_top=*/false},
    {"FindUnused", {.find_unused_parameters = true}},
    {"FindUnusedLossThroughNestedOnly",
     {.find_unused_parameters = true},
     /*loss_through_top=*/false},
    {"StaticGraph", {.static_graph = true}},
    {"StaticGraphLossThroughNestedOnly",
     {.static_graph = true},
     /*loss_through_top=*/false},
};
RANKTEST_INSTANTIATE_P(DdpNestedOutputs, kNestedCases);

}  // namespace
}  // namespace ddpparity
