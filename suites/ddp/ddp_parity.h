#pragma once

// What the DDP parity tests share: the fixture models by name, each rank's
// data, their settings of fixtures::trainUnderDdp, and the single-process
// references DDP must equal.

#include <ATen/ATen.h>
#include <torch/nn/modules/container/sequential.h>

#include <cstdint>
#include <vector>

#include "distalgo/ddp/ddp_options.h"
#include "fixtures/compare.h"
#include "fixtures/ddp_training.h"
#include "fixtures/rank_data.h"
#include "fixtures/replay.h"
#include "ranktest/ranktest.h"

namespace ddpparity {

using Group = c10::intrusive_ptr<c10d::ProcessGroup>;

constexpr int kSteps = 4;
constexpr int kRows = 5;  // per rank and step
constexpr double kLearningRate = 0.1;
// Float sums in another order; nothing else differs.
constexpr fixtures::Tolerance kTolerance{.rtol = 1e-5, .atol = 1e-6};

enum class Model {
  kMlp,
  kConvNet,
  kUnusedParameterNet,
  kBatchNormNet,
  kFrozenLayerNet,
  kTiedNet
};

// The fixture model, wrapped in a Sequential so that one DDP type takes all.
torch::nn::Sequential makeModel(Model model, std::uint64_t seed);

// The batch that `rank` trains on at `step`.
fixtures::Batch batch(int step, int rank);
// The batches of every rank at `step`, concatenated in rank order.
fixtures::Batch globalBatch(int step, int world_size);

// fixtures::trainUnderDdp's settings for `model` with `options`: kSteps SGD
// steps on this rank's batches, ranks other than 0 starting from other
// parameters and buffers (DDP must broadcast rank 0's).
fixtures::DdpTraining ddpTraining(Model model, int rank,
                                  const distalgo::ddp::DdpOptions& options);

// What DDP training must end with, computed in one process.
struct Reference {
  torch::nn::Sequential model;
  std::vector<fixtures::BufferState> buffers;  // per rank
};

// A model without buffers trains as one process on the concatenated global
// batch; one with buffers (batch norm) as fixtures::replayDataParallel.
Reference groundTruth(Model model, int world_size, bool broadcast_buffers,
                      int steps = kSteps);

}  // namespace ddpparity
