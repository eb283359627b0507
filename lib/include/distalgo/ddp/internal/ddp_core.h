#pragma once

// The module-independent part of DistributedDataParallel: the checks and
// broadcasts of construction, and the real c10d::Reducer around each step.

#include <torch/nn/module.h>

#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/reducer.hpp>
#include <vector>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/ddp/ddp_options.h"

namespace distalgo::ddp::internal {

class DdpCore {
 public:
  DdpCore(std::shared_ptr<torch::nn::Module> module,
          c10::intrusive_ptr<c10d::ProcessGroup> pg, DdpOptions options);

  // Before the module's forward: bucket rebuild and buffer broadcast.
  void beforeForward();
  // After it: tells the reducer which outputs backward will start from.
  // Returns the tensors to hand to the caller in place of `outputs`, which
  // pass through an identity autograd node where the reducer needs one (as
  // PyTorch's _DDPSink: with find_unused_parameters, and in a static graph's
  // first iteration).
  std::vector<at::Tensor> afterForward(const std::vector<at::Tensor>& outputs);

  void registerCommHook(CommHook hook, std::string name);
  void registerBuiltinCommHook(c10d::BuiltinCommHookType type);

  bool syncEnabled() const { return sync_enabled_; }
  void setSyncEnabled(bool enabled) { sync_enabled_ = enabled; }

  c10d::Reducer& reducer() { return *reducer_; }
  const c10::intrusive_ptr<c10d::ProcessGroup>& processGroup() const {
    return pg_;
  }

 private:
  void broadcastFromRankZero(const std::vector<at::Tensor>& tensors);
  void syncBuffers();
  // Grad mode on and not under noSync: this forward's backward reduces.
  bool reducing() const;
  void claimHookSlot(const std::string& name);
  void checkPreviousBackwardRan() const;
  void watchForBackward(const std::vector<at::Tensor>& outputs);

  std::shared_ptr<torch::nn::Module> module_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  DdpOptions options_;
  std::vector<at::Tensor> parameters_;
  std::unique_ptr<c10d::Reducer> reducer_;
  bool sync_enabled_ = true;
  // Set by the last synced forward; its flag turns true when backward reaches
  // one of that forward's outputs.
  bool reduction_pending_ = false;
  std::shared_ptr<bool> backward_reached_;
  // Forwards that started a reducing iteration (PyTorch's num_iterations).
  int64_t num_iterations_ = 0;
  // Whether the last forward reduced; buffers are broadcast before a forward
  // only then (PyTorch's require_forward_param_sync).
  bool require_forward_param_sync_ = true;
  std::string hook_name_;  // of the registered hook; empty: none
};

}  // namespace distalgo::ddp::internal
