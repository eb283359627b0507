#pragma once

// Gradient compression to float16 for the wire (half of allreduce's bytes).
// Gradients beyond float16's range overflow to infinity, as in PyTorch.

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distalgo/ddp/comm_hook.h"

namespace distalgo::hooks {

// Casts the bucket to float16, divides by the world size, allreduces, and
// casts the result back (PyTorch's fp16_compress_hook).
ddp::CommHook fp16CompressHook(c10::intrusive_ptr<c10d::ProcessGroup> pg);

// Runs `hook` on a float16 copy of the bucket and casts its result back
// (PyTorch's fp16_compress_wrapper).
ddp::CommHook fp16CompressWrapper(ddp::CommHook hook);

}  // namespace distalgo::hooks
