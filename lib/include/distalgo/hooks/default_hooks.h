#pragma once

// The plain DDP communication hooks.

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/hooks/half_sum.h"

namespace distalgo::hooks {

// Divides the bucket by the world size and allreduces it: what DDP does
// without a hook (PyTorch's allreduce_hook). A 16-bit buffer is summed as
// `half_sum` says: by default a bfloat16 one with allreduceBf16, so this
// works on Gloo too, and so is a float16 one outside NCCL (half_sum.h).
ddp::CommHook allreduceHook(c10::intrusive_ptr<c10d::ProcessGroup> pg,
                            HalfSum half_sum = HalfSum::kFloat32Once);

// No communication: every rank keeps its own gradients (for debugging, to
// see how much of a step is communication).
ddp::CommHook noopHook();

}  // namespace distalgo::hooks
