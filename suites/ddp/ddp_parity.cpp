#include "ddp_parity.h"

#include <torch/nn/functional/loss.h>

#include <stdexcept>
#include <utility>
#include <vector>

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
    case Model::kFrozenLayerNet:
      return fixtures::makeFrozenLayerNet(seed);
    case Model::kTiedNet:
      return fixtures::makeTiedNet(seed);
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

fixtures::DdpTraining ddpTraining(Model model, int rank,
                                  const distalgo::ddp::DdpOptions& options) {
  return {.make_model =
              [model, rank] {
                auto module = makeModel(model, rank == 0 ? 1 : 50 + rank);
                if (rank != 0) perturbBuffers(*module, rank);
                return module;
              },
          .ddp = options,
          .rank = rank,
          .rows = kRows,
          .steps = kSteps,
          .learning_rate = kLearningRate};
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
  // Each rank's own, as ddpTraining builds them: DDP keeps them where it
  // does not broadcast buffers at construction.
  std::vector<fixtures::BufferState> initial_buffers;
  for (int rank = 0; rank < world_size; ++rank) {
    fixtures::BufferState state;
    for (const auto& b : ddpTraining(kind, rank, {}).make_model()->buffers()) {
      state.push_back(b.detach().clone());
    }
    initial_buffers.push_back(std::move(state));
  }
  reference.buffers = fixtures::replayDataParallel(
      *model,
      {.world_size = world_size,
       .steps = steps,
       .learning_rate = kLearningRate,
       .broadcast_buffers = broadcast_buffers,
       .initial_buffers = std::move(initial_buffers)},
      [&](int step, int rank) { return mseLoss(model, batch(step, rank)); });
  return reference;
}

}  // namespace ddpparity
