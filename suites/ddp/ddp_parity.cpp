#include "ddp_parity.h"

#include <gtest/gtest.h>
#include <torch/nn/functional/loss.h>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/models.h"
#include "fixtures/training.h"

namespace ddpparity {
namespace {

at::Tensor mseLoss(torch::nn::Sequential& model, const fixtures::Batch& b) {
  return torch::nn::functional::mse_loss(model->forward(b.input), b.target);
}

// Moves this rank's floating-point buffers away from rank 0's.
void perturbBuffers(torch::nn::Module& module, int rank) {
  at::NoGradGuard no_grad;
  for (auto& buffer : module.buffers()) {
    if (buffer.is_floating_point()) buffer.add_(rank);
  }
}

std::string difference(const at::Tensor& a, const at::Tensor& e) {
  return std::to_string(
      (a.to(at::kDouble) - e.to(at::kDouble)).abs().max().item<double>());
}

}  // namespace

torch::nn::Sequential makeModel(Model model, std::uint64_t seed) {
  switch (model) {
    case Model::kMlp:
      return fixtures::makeMlp(seed);
    case Model::kConvNet:
      return fixtures::makeConvNet(seed);
    case Model::kUnusedParameterNet:
      return torch::nn::Sequential(fixtures::makeUnusedParameterNet(seed));
    case Model::kBatchNormNet:
      return fixtures::makeBatchNormNet(seed);
  }
  throw std::invalid_argument("ddpparity::makeModel: unknown model");
}

fixtures::Batch batch(int step, int rank) {
  return fixtures::rankBatch(step, rank, kRows, fixtures::kMlpInputs,
                             fixtures::kMlpOutputs);
}

fixtures::Batch globalBatch(int step, int world_size) {
  return fixtures::globalBatch(step, world_size, kRows, fixtures::kMlpInputs,
                               fixtures::kMlpOutputs);
}

torch::nn::Sequential trainWithDdp(Model kind, const Group& pg, int rank,
                                   const distalgo::ddp::DdpOptions& options,
                                   int steps) {
  auto model = makeModel(kind, /*seed=*/rank == 0 ? 1 : 50 + rank);
  if (rank != 0) perturbBuffers(*model, rank);
  distalgo::ddp::DistributedDataParallel ddp(model, pg, options);
  fixtures::sgdSteps(model->parameters(), steps, kLearningRate, [&](int step) {
    const auto b = batch(step, rank);
    return torch::nn::functional::mse_loss(ddp.forward(b.input), b.target);
  });
  return model;
}

Reference groundTruth(Model kind, int world_size, bool broadcast_buffers,
                      int steps) {
  Reference reference{makeModel(kind, /*seed=*/1), {}};
  auto& model = reference.model;
  if (model->buffers().empty()) {
    fixtures::sgdSteps(model->parameters(), steps, kLearningRate,
                       [&](int step) {
                         return mseLoss(model, globalBatch(step, world_size));
                       });
    return reference;
  }
  reference.buffers = fixtures::replayDataParallel(
      *model,
      {.world_size = world_size,
       .steps = steps,
       .learning_rate = kLearningRate,
       .broadcast_buffers = broadcast_buffers},
      [&](int step, int rank) { return mseLoss(model, batch(step, rank)); });
  return reference;
}

void expectEqualParameters(const torch::nn::Module& actual,
                           const torch::nn::Module& expected, int rank) {
  const auto a = actual.named_parameters();
  const auto e = expected.named_parameters();
  ASSERT_EQ(a.size(), e.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(at::allclose(a[i].value(), e[i].value(), kRtol, kAtol))
        << "parameter " << a[i].key() << " on rank " << rank
        << ", largest difference " << difference(a[i].value(), e[i].value());
  }
}

void expectEqualBuffers(const torch::nn::Module& actual,
                        const fixtures::BufferState& expected, int rank) {
  const auto a = actual.named_buffers();
  ASSERT_EQ(a.size(), expected.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const at::Tensor& value = a[i].value();
    const bool equal = value.is_floating_point()
                           ? at::allclose(value, expected[i], kRtol, kAtol)
                           : at::equal(value, expected[i]);
    EXPECT_TRUE(equal) << "buffer " << a[i].key() << " on rank " << rank
                       << ", largest difference "
                       << difference(value, expected[i]);
  }
}

}  // namespace ddpparity
