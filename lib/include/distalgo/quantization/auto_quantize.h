#pragma once

// PyTorch's auto_quantize: wraps a collective so that its tensors travel in
// FP16 or BFP16, half of float32's bytes. The ready wrappers in
// collectives.h are built on it.
//
// Example (a quantized allgather over `pg`):
//   auto gather = distalgo::quantization::autoQuantize(
//       [pg](std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs)
//       {
//         std::vector<std::vector<at::Tensor>> lists{outputs};
//         pg->allgather(lists, inputs)->wait();
//       },
//       DQuantType::BFP16);
//   gather(outputs, inputs);  // outputs: W float32 tensors, filled in place
//
// Differences from PyTorch:
// - The results are copied into the caller's output tensors, which keep
//   their storage and dtype; PyTorch rebinds all_gather's list entries to new
//   float32 tensors.
// - `quant_loss` divides every result; PyTorch drops it for all_gather and
//   all_to_all.
// - Output placeholders are float16 tensors of the outputs' shapes, not
//   quantized copies of the outputs (their values are never read).
// - On the CPU, the quantized inputs and the placeholders are views of
//   per-thread staging buffers kept between calls (a fresh tensor of tens
//   of MiB costs its page faults on every call): the collective must not
//   keep them after it returns.
// - Synchronous only, as PyTorch (which refuses async_op=True).

#include <ATen/core/Tensor.h>

#include <functional>
#include <optional>
#include <vector>

#include "distalgo/quantization/dquant_type.h"

namespace distalgo::quantization {

// A collective that reads `inputs` and, when it returns, has written its
// results into the tensors of `outputs` (either list may be empty).
using Collective = std::function<void(std::vector<at::Tensor>& outputs,
                                      std::vector<at::Tensor>& inputs)>;

// Returns `collective` quantized: the inputs go through quantizeTensor, the
// collective runs on the float16 tensors, and each result is dequantized
// (divided by `quant_loss` when given) into the caller's output of the same
// index. Outputs must be floating point.
Collective autoQuantize(Collective collective, DQuantType qtype,
                        std::optional<double> quant_loss = std::nullopt);

}  // namespace distalgo::quantization
