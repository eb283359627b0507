#pragma once

// Introspection for tests and benchmarks: what a checkpoint node keeps.

#include <ATen/core/Tensor.h>

#include <vector>

namespace distalgo::checkpoint::internal {

// The defined inputs that the checkpoint which produced `output` keeps for
// its backward (on the CPU under offload_to_cpu); empty when `output` does not
// come from a checkpoint or its backward already ran.
std::vector<at::Tensor> savedInputs(const at::Tensor& output);

}  // namespace distalgo::checkpoint::internal
