#pragma once

// PowerSGD gradient compression (Vogels et al., NeurIPS 2019) as DDP
// communication hooks, ported from PyTorch's powerSGD_hook.py. Until
// options.start_iteration both hooks allreduce plainly; afterwards each
// rank sends low-rank factors P and Q instead of its gradients.
//
// Example:
//   auto state = std::make_shared<PowerSgdState>(
//       pg, PowerSgdOptions{.matrix_approximation_rank = 2,
//                           .start_iteration = 10});
//   ddp.registerCommHook(powerSgdHook(state), "powersgd");
//   ...
//   state->compressionStats().rate;

#include <memory>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/hooks/powersgd_state.h"

namespace distalgo::hooks {

// Layer-wise PowerSGD (powerSGD_hook): each gradient viewed as a matrix
// [shape[0], -1] is compressed to rank min(n, m, r) when that saves at least
// min_compression_rate; the rest (biases among them) is allreduced as is.
ddp::CommHook powerSgdHook(std::shared_ptr<PowerSgdState> state);

// Bucket-wise PowerSGD (batched_powerSGD_hook): the whole bucket, padded
// with zeros to a square, is one matrix of rank r. Unlike PyTorch's (1.13
// and 2.11 alike), which fails once compression starts, it works past the
// start iteration.
ddp::CommHook batchedPowerSgdHook(std::shared_ptr<PowerSgdState> state);

}  // namespace distalgo::hooks
