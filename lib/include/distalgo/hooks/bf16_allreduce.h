#pragma once

// Summing bfloat16 tensors over a process group on any backend. NCCL sums
// bfloat16 natively; Gloo in libtorch 1.13 refuses it ("Invalid scalar
// type"), so there the sum is a reduce-scatter built from alltoall_base,
// summed locally in float32, followed by an allgather.
//
// Traffic of the Gloo scheme for a tensor of n elements over W ranks, with
// chunk = ceil(n / W) (the tensor is padded with zeros to W * chunk):
//   alltoall_base: (W - 1) * chunk * 2 bytes in (every other rank's chunk;
//                  this rank's own chunk stays local),
//   allgather:     chunk * 2 bytes in (this rank's reduced chunk),
// together W * chunk * 2 bytes: what an allreduce of the padded bfloat16
// tensor puts in, half of a float32 allreduce.

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

namespace distalgo::hooks {

// Whether `pg`'s backend sums bfloat16 in its own allreduce (NCCL); the
// other backends take the alltoall_base + allgather scheme.
bool canSumBf16(const c10d::ProcessGroup& pg);

// Sums the bfloat16 `tensor` over `pg` in place and returns a future of it.
// With NCCL this is one allreduce. Elsewhere the alltoall_base runs before
// this returns (issuing the second collective from a callback could order
// collectives differently on different ranks); each element is summed in
// float32 in rank order and rounded to bfloat16 once. Throws
// std::invalid_argument for a tensor that is not bfloat16.
c10::intrusive_ptr<c10::ivalue::Future> allreduceBf16(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, const at::Tensor& tensor);

}  // namespace distalgo::hooks
