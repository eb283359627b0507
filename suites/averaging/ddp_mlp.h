#pragma once

// One rank's MLP (fixtures::makeMlp, seed 1; or a model of several buckets)
// under DDP, trained on fixtures::rankBatch: the model the post-local SGD
// tests train.

#include <torch/nn/modules/container/sequential.h>

#include <memory>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/ddp/distributed_data_parallel.h"
#include "fixtures/bucketed_models.h"

namespace averaging_suite {

class DdpMlp {
 public:
  // Collective over `pg` (builds DDP); `hook`, if given, replaces DDP's
  // allreduce.
  DdpMlp(const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int rank,
         distalgo::ddp::CommHook hook = {});
  // The same for a model of several buckets, at its caps.
  DdpMlp(const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int rank,
         distalgo::ddp::CommHook hook, const fixtures::BucketedModel& model);

  // Zeroes the gradients, then forward and backward on the batch of `step`.
  void backward(int step);

  std::vector<at::Tensor> parameters() const { return model_->parameters(); }
  // Detached copies of the parameters and of their gradients.
  std::vector<at::Tensor> parameterValues() const;
  std::vector<at::Tensor> gradientValues() const;

 private:
  int rank_;
  int features_;
  torch::nn::Sequential model_;
  std::unique_ptr<distalgo::ddp::DistributedDataParallel<torch::nn::Sequential>>
      ddp_;
};

}  // namespace averaging_suite
