#pragma once

// The models bench_ddp_step trains: the fixtures' MLP and conv net, both
// 8 inputs to 4 outputs. bench/ddp_step.py builds the same in Python.

#include <torch/nn/modules/container/sequential.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ddp_step {

struct ModelRow {
  std::string name;
  std::function<torch::nn::Sequential(std::uint64_t seed)> make;
  int inputs = 0;
  int outputs = 0;
};

const std::vector<ModelRow>& modelRows();
// Nothing for an unknown name.
const ModelRow* findModel(const std::string& name);

}  // namespace ddp_step
