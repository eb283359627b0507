#pragma once

// The plain DDP communication hooks.

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distalgo/ddp/comm_hook.h"

namespace distalgo::hooks {

// Divides the bucket by the world size and allreduces it: what DDP does
// without a hook (PyTorch's allreduce_hook). A bfloat16 buffer is summed
// with allreduceBf16, so this works on Gloo too; so is a float16 one outside
// NCCL (fp16_compress.h says why).
ddp::CommHook allreduceHook(c10::intrusive_ptr<c10d::ProcessGroup> pg);

// No communication: every rank keeps its own gradients (for debugging, to
// see how much of a step is communication).
ddp::CommHook noopHook();

}  // namespace distalgo::hooks
