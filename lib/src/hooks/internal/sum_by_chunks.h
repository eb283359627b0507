#pragma once

// Summing a tensor of 16-bit floats over a process group without the
// backend's own sum: Gloo cannot sum bfloat16, and sums float16 one element
// at a time in float16 arithmetic. A reduce-scatter, each chunk summed
// locally in float32, then an allgather, both as point-to-point messages
// (exchange.h); bf16_allreduce.h gives its traffic.

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "quantization/internal/half_kernels.h"

namespace distalgo::hooks::internal {

// Sums `input` (float16 or bfloat16 words) over `pg` into `output` (the same
// number of 16-bit elements; may be `input`) and returns a future of
// `output`. The words are read as `format`'s float32 values, summed in
// float32 in rank order, and the sum rounded to `format` once (on the host:
// a CUDA tensor goes through a host copy). Both phases run before this
// returns: the future is complete.
c10::intrusive_ptr<c10::ivalue::Future> sumByChunks(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, const at::Tensor& input,
    const at::Tensor& output, const quantization::internal::WordFormat& format);

}  // namespace distalgo::hooks::internal
