#pragma once

// The MLP trained under DDP, with a libtorch optimizer stepping after
// backward or with an optimizer inside the communication hook.

#include <torch/nn/modules/container/sequential.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/ddp/ddp_options.h"
#include "optimizer_cases.h"

namespace optim_suite {

using Group = c10::intrusive_ptr<c10d::ProcessGroup>;

// What a training run ends with.
struct Trained {
  std::vector<at::Tensor> parameters;
  // The gradients the last backward left in .grad().
  std::vector<at::Tensor> gradients;
  // Buckets the hook saw in the last backward (0 without a hook).
  std::size_t buckets = 0;
};

// `steps` steps of the MLP (seed 1) on fixtures::rankBatch under DDP with
// `options` and, if given, `hook`; `optimizer`, if given, steps every
// parameter after each backward.
Trained trainMlp(const Group& pg, int rank, distalgo::ddp::DdpOptions options,
                 int steps, const OptimizerCase* optimizer,
                 distalgo::ddp::CommHook hook);

// The MLP's initial parameters.
std::vector<at::Tensor> initialMlpParameters();

}  // namespace optim_suite
