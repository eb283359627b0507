#pragma once

// Summing bfloat16 tensors over a process group on any backend. NCCL sums
// bfloat16 natively; Gloo in libtorch 1.13 refuses it ("Invalid scalar
// type"), so there the sum is a reduce-scatter, summed locally in float32,
// followed by an allgather, both as point-to-point messages with every
// receive posted first (one Gloo alltoall or allgather moves a large
// message each way at about half a link's speed; bench/results/link.md).
//
// Traffic of the Gloo scheme for a tensor of n elements over W ranks, with
// chunk = ceil(n / W) and c_r the length of rank r's chunk (the last ones
// may be shorter or empty), as sends: every other rank's chunk (n - c_me
// elements), then this rank's summed chunk to each other rank
// ((W - 1) c_me), 2 bytes each. Over all ranks 4 (W - 1) n bytes: half of
// what a ring allreduce of the float32 tensor moves.

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

namespace distalgo::hooks {

// Whether `pg`'s backend sums bfloat16 in its own allreduce (NCCL); the
// other backends take the point-to-point scheme above.
bool canSumBf16(const c10d::ProcessGroup& pg);

// Sums the bfloat16 `tensor` over `pg` in place and returns a future of it.
// With NCCL this is one allreduce. Elsewhere both phases run before this
// returns (issuing messages from a callback could order them differently
// on different ranks); each element is summed in float32 in rank order and
// rounded to bfloat16 once. Throws
// std::invalid_argument for a tensor that is not bfloat16.
c10::intrusive_ptr<c10::ivalue::Future> allreduceBf16(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, const at::Tensor& tensor);

}  // namespace distalgo::hooks
