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
  void afterForward(const std::vector<at::Tensor>& outputs);

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
  void claimHookSlot(const std::string& name);
  void checkPreviousBackwardRan() const;

  std::shared_ptr<torch::nn::Module> module_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  DdpOptions options_;
  std::vector<at::Tensor> parameters_;
  std::vector<at::Tensor> buffers_;
  std::unique_ptr<c10d::Reducer> reducer_;
  bool sync_enabled_ = true;
  // Set by the last synced forward; its flag turns true when backward reaches
  // one of that forward's outputs.
  bool reduction_pending_ = false;
  std::shared_ptr<bool> backward_reached_;
  std::string hook_name_;  // of the registered hook; empty: none
};

}  // namespace distalgo::ddp::internal
