#pragma once

// Gradient compression to float16 for the wire (half of allreduce's bytes).
// Gradients beyond float16's range overflow to infinity, as in PyTorch.
// Where the backend would sum float16 in float16 one element at a time
// (Gloo), allreduceHook sums the float16 bucket by allreduceBf16's scheme
// instead (bf16_allreduce.h): in float32, rounded to float16 once (an
// overflowing sum still becomes infinity), twice as fast on loopback and
// no longer slower than the wire (bench/results/link.md). PyTorch's hook
// sums in float16 there, each partial sum rounded.

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/hooks/half_sum.h"

namespace distalgo::hooks {

// Casts the bucket to float16, divides by the world size, allreduces, and
// casts the result back (PyTorch's fp16_compress_hook).
// `half_sum` chooses how the float16 bucket is summed (half_sum.h):
// HalfSum::kBackend gives PyTorch's numbers bit for bit.
ddp::CommHook fp16CompressHook(c10::intrusive_ptr<c10d::ProcessGroup> pg,
                               HalfSum half_sum = HalfSum::kFloat32Once);

// Runs `hook` on a float16 copy of the bucket and casts its result back
// (PyTorch's fp16_compress_wrapper).
ddp::CommHook fp16CompressWrapper(ddp::CommHook hook);

}  // namespace distalgo::hooks
