#pragma once

// Small pieces the hooks share for their futures and chained allreduces.

#include <ATen/core/ivalue.h>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distalgo/ddp/comm_hook.h"

namespace distalgo::hooks::internal {

// A future already completed with `tensor`.
inline c10::intrusive_ptr<c10::ivalue::Future> completedFuture(
    const at::Tensor& tensor) {
  auto future =
      c10::make_intrusive<c10::ivalue::Future>(c10::TensorType::get());
  future->markCompleted(c10::IValue(tensor));
  return future;
}

// Starts an allreduce (sum) of `tensor` in place; its future holds the list
// of reduced tensors.
inline c10::intrusive_ptr<c10::ivalue::Future> allreduceAsync(
    c10d::ProcessGroup& pg, const at::Tensor& tensor) {
  std::vector<at::Tensor> tensors{tensor};
  return pg.allreduce(tensors)->getFuture();
}

// The reduced tensor of a finished allreduce, made to live in `memory`
// (Gloo and NCCL reduce in place, so this copies only for other backends).
inline at::Tensor reducedInto(c10::ivalue::Future& done,
                              const at::Tensor& memory) {
  at::Tensor reduced = ddp::firstTensorOf(done.value());
  if (!reduced.is_same(memory)) memory.copy_(reduced);
  return memory;
}

}  // namespace distalgo::hooks::internal
