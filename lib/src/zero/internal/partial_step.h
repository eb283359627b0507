#pragma once

// One DDP bucket as the ZeRO overlap hook saw it, and the optimizer step and
// broadcasts run on its reduced gradients.

#include <ATen/core/Tensor.h>
#include <ATen/core/ivalue.h>
#include <torch/optim/optimizer.h>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

#include "distalgo/ddp/grad_bucket.h"

namespace distalgo::zero::internal {

// A bucket of this iteration: its parameters, the layout of their gradients
// in its buffer, and the future of the wrapped hook's reduction.
struct SeenBucket {
  std::vector<at::Tensor> parameters;
  std::vector<at::Tensor> gradients;  // views into `buffer`, for offsets
  at::Tensor buffer;
  c10::intrusive_ptr<c10::ivalue::Future> reduced;
};

SeenBucket seeBucket(ddp::GradBucket& bucket,
                     c10::intrusive_ptr<c10::ivalue::Future> reduced);

// Waits for the reduction and returns each parameter's reduced gradient: a
// view into the future's tensor, laid out as in the bucket's buffer. (Not
// the parameters' .grad: the reducer writes those after the last bucket.)
std::vector<at::Tensor> reducedGradients(const SeenBucket& bucket);

// Steps `optimizer` with gradients[i] as the gradient of parameters[i] and
// none for its other parameters (libtorch optimizers skip those), then
// restores every parameter's own gradient.
void stepWith(torch::optim::Optimizer& optimizer,
              const std::vector<at::Tensor>& parameters,
              const std::vector<at::Tensor>& gradients);

// One piece's parameters broadcast from their owner as one flat tensor (a
// DDP bucket has one dtype and device), in flight.
class PieceBroadcast {
 public:
  // Issues the broadcast; the owner sends its parameters' current values.
  PieceBroadcast(c10d::ProcessGroup& pg, std::vector<at::Tensor> parameters,
                 int owner);
  // Waits; on the other ranks, copies the values into the parameters.
  void finish();

 private:
  std::vector<at::Tensor> parameters_;
  at::Tensor flat_;
  bool receives_;
  c10::intrusive_ptr<c10d::Work> work_;
};

}  // namespace distalgo::zero::internal
