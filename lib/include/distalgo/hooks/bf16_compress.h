#pragma once

// Gradient compression to bfloat16 for the wire (half of allreduce's bytes).
// bfloat16 keeps float32's range but only 8 significant bits: each gradient
// rounds by up to 2^-9 (about 2e-3) relative. They run on every backend: by
// default the sum goes through allreduceBf16's point-to-point scheme on Gloo
// (bf16_allreduce.h states its traffic), which 1.13's Gloo cannot sum and
// 2.x's sums with a rounding per partial sum.

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/hooks/half_sum.h"

namespace distalgo::hooks {

// Casts the bucket to bfloat16, divides by the world size, sums it over
// `pg`, and casts the result back (PyTorch's bf16_compress_hook).
// `half_sum` chooses how the bfloat16 bucket is summed (half_sum.h):
// HalfSum::kBackend gives PyTorch's numbers bit for bit.
ddp::CommHook bf16CompressHook(c10::intrusive_ptr<c10d::ProcessGroup> pg,
                               HalfSum half_sum = HalfSum::kFloat32Once);

// Runs `hook` on a bfloat16 copy of the bucket and casts its result back
// (PyTorch's bf16_compress_wrapper). The wrapped hook sees a bfloat16
// buffer: allreduceHook, noopHook and the quantization hooks handle one on
// every backend; a hook that passes it to ProcessGroup::allreduce itself
// needs a backend that sums bfloat16 (canSumBf16): libtorch 1.13's Gloo
// does not, and fails with std::invalid_argument.
ddp::CommHook bf16CompressWrapper(ddp::CommHook hook);

}  // namespace distalgo::hooks
