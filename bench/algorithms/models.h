#pragma once

// The models the DDP benchmarks train, by name, and the batches each rank
// trains on. bench/ddp_step.py builds mlp and convnet alike in Python.

#include <torch/nn/modules/container/sequential.h>

#include <functional>
#include <string>
#include <vector>

#include "fixtures/rank_data.h"

namespace bench {

struct Model {
  std::string name;
  // The same parameters in every rank and every mode.
  std::function<torch::nn::Sequential()> make;
  int inputs = 0;
  int outputs = 0;
};

// mlp and convnet (fixtures/models.h, 8 inputs to 4 outputs), wide_mlp
// (256-1024-256, 0.5 M parameters) and deep_mlp (13 layers of about 512 x
// 512, 3.2 M parameters) and link_mlp (6 layers of 2048 x 2048, 25.2 M
// parameters). Throws std::invalid_argument for another name.
const Model& modelNamed(const std::string& name);

// The batches a rank cycles through, made before timing.
std::vector<fixtures::Batch> rankBatches(const Model& model, int rank,
                                         int rows);

}  // namespace bench
