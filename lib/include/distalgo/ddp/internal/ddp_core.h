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
#include "distalgo/join/joinable.h"

namespace distalgo::ddp::internal {

class DdpCore {
 public:
  DdpCore(std::shared_ptr<torch::nn::Module> module,
          c10::intrusive_ptr<c10d::ProcessGroup> pg, DdpOptions options);
  // Waits for the last join heartbeat: a rank must not leave (e.g. on an
  // exception from forward) while its part of an allreduce is in flight.
  ~DdpCore();

  // Before the module's forward: the join heartbeat (through `self`, the
  // DDP as a Joinable), bucket rebuild and buffer broadcast.
  void beforeForward(join::Joinable& self);
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

  // Join support (ddp_join.cpp). The hook shadows one training iteration on
  // a joined rank, and at the end gives every rank the model of the
  // highest-ranked last joiner.
  std::unique_ptr<join::JoinHook> makeJoinHook(const join::JoinArgs& args,
                                               join::Joinable& self);
  void shadowIteration(const join::Joinable& self);
  void syncFinalModel(bool is_last_joiner);
  // The rank whose model every rank took at the end of the last Join.
  int authoritativeRank() const { return authoritative_rank_; }
  c10::Device device() const { return parameters_.front().device(); }

  c10d::Reducer& reducer() { return *reducer_; }
  const c10::intrusive_ptr<c10d::ProcessGroup>& processGroup() const {
    return pg_;
  }

 private:
  void broadcastFrom(int source, const std::vector<at::Tensor>& tensors);
  // The module's buffers, each tensor once, collected anew.
  std::vector<at::Tensor> moduleBuffers() const;
  // Every parameter (frozen ones too) of the module, and its buffers where
  // syncsBuffersWithParameters(), each tensor once: what construction and the
  // end of a Join broadcast.
  std::vector<at::Tensor> moduleStates() const;
  // broadcast_buffers is on, the last forward reduced, and there are some.
  bool syncsBuffersBeforeForward() const;
  // Broadcasts the module's buffers from `source`.
  void syncBuffers(int source);
  // The largest rank for which `consider` holds (an allreduce MAX; -1 when
  // it holds nowhere).
  int findCommonRank(bool consider);
  // On a joined rank: writes each shadowed bucket's reduced result (the
  // training ranks' averaged gradient) into its parameters' gradients, as the
  // reducer does, so an optimizer stepping here (ZeRO's join hook) uses it.
  // `buffers`: each bucket's buffer before its hook ran, which the hook's
  // result must match (checked before anything is written).
  // `used_counts`: the allreduced used map with find_unused_parameters.
  void writeReducedGradients(
      const std::vector<c10d::GradBucket>& buckets,
      const std::vector<at::Tensor>& buffers,
      const std::vector<c10::intrusive_ptr<c10::ivalue::Future>>& futures,
      const at::Tensor& used_counts);
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
  // Join: divide gradients by the initial world size (true) or by the ranks
  // still training (false), and the rank the final model came from.
  bool divide_by_initial_world_size_ = true;
  c10::intrusive_ptr<c10d::Work> heartbeat_;
  int authoritative_rank_ = 0;
};

}  // namespace distalgo::ddp::internal
