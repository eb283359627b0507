#pragma once

// What the DDP parity tests share: the fixture models by name, each rank's
// data, training through DDP, and the single-process references DDP must
// equal.

#include <ATen/ATen.h>
#include <torch/nn/modules/container/sequential.h>

#include <cstdint>
#include <string>
#include <vector>

#include "distalgo/ddp/ddp_options.h"
#include "fixtures/rank_data.h"
#include "fixtures/replay.h"
#include "ranktest/ranktest.h"

namespace ddpparity {

using Group = c10::intrusive_ptr<c10d::ProcessGroup>;

constexpr int kSteps = 4;
constexpr int kRows = 5;  // per rank and step
constexpr double kLearningRate = 0.1;
// Float sums in another order; nothing else differs.
constexpr double kRtol = 1e-5;
constexpr double kAtol = 1e-6;

enum class Model { kMlp, kConvNet, kUnusedParameterNet, kBatchNormNet };

// The fixture model, wrapped in a Sequential so that one DDP type takes all.
torch::nn::Sequential makeModel(Model model, std::uint64_t seed);

// The batch that `rank` trains on at `step`.
fixtures::Batch batch(int step, int rank);
// The batches of every rank at `step`, concatenated in rank order.
fixtures::Batch globalBatch(int step, int world_size);

// Trains `model` through DDP for `steps` SGD steps on this rank's batches.
// Ranks other than 0 start from other parameters and buffers: DDP must
// broadcast rank 0's.
torch::nn::Sequential trainWithDdp(Model model, const Group& pg, int rank,
                                   const distalgo::ddp::DdpOptions& options,
                                   int steps = kSteps);

// What DDP training must end with, computed in one process.
struct Reference {
  torch::nn::Sequential model;
  std::vector<fixtures::BufferState> buffers;  // per rank
};

// A model without buffers trains as one process on the concatenated global
// batch; one with buffers (batch norm) as fixtures::replayDataParallel.
Reference groundTruth(Model model, int world_size, bool broadcast_buffers,
                      int steps = kSteps);

// Expects equal parameters within kRtol/kAtol, naming each that differs.
void expectEqualParameters(const torch::nn::Module& actual,
                           const torch::nn::Module& expected, int rank);

// Expects the module's buffers to equal `expected`.
void expectEqualBuffers(const torch::nn::Module& actual,
                        const fixtures::BufferState& expected, int rank);

}  // namespace ddpparity
