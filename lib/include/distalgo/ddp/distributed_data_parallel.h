#pragma once

// Data-parallel training of any torch::nn module over a c10d process group,
// on the real c10d::Reducer (buckets, autograd hooks, unused parameters).
//
// Example:
//   torch::nn::Linear model(4, 2);
//   distalgo::ddp::DistributedDataParallel ddp(model, pg());
//   auto loss = ddp.forward(x).sum();
//   loss.backward();  // gradients are averaged over the ranks here

#include <ATen/core/Tensor.h>
#include <c10/util/irange.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/ddp/ddp_options.h"
#include "distalgo/ddp/internal/ddp_core.h"
#include "distalgo/ddp/internal/output_tensors.h"
#include "distalgo/join/join.h"

namespace distalgo::ddp {

// Zeroes the module's gradients in place. libtorch's Optimizer::zero_grad()
// detaches them first, which fails on the bucket views that
// gradient_as_bucket_view makes of them: call this instead.
void zeroGradients(torch::nn::Module& module);

// Join argument read by DDP's join hook: under a Join, divide the reduced
// gradients by the initial world size (true, the default) or by the number of
// ranks still training (false).
inline constexpr join::JoinArg<bool> kDivideByInitialWorldSize{
    "divide_by_initial_world_size", true};

// A Joinable: under a distalgo::join::Join, ranks that ran out of inputs
// shadow the others' collectives, and all end with the model of the
// highest-ranked last joiner.
template <typename ModuleHolder>
class DistributedDataParallel : public join::Joinable {
 public:
  // Checks that every rank holds the same parameters, broadcasts parameters
  // (and buffers, where syncsBuffersWithParameters) from rank 0 and builds
  // the reducer. Collective: every rank of `pg` must construct it.
  DistributedDataParallel(ModuleHolder module,
                          c10::intrusive_ptr<c10d::ProcessGroup> pg,
                          DdpOptions options = {})
      : module_(std::move(module)),
        core_(module_.ptr(), std::move(pg), options) {}
  // The reducer's hooks and a Join refer to this object: it stays in place.
  DistributedDataParallel(const DistributedDataParallel&) = delete;
  DistributedDataParallel& operator=(const DistributedDataParallel&) = delete;

  // Runs the module's forward; the next backward reduces the gradients. The
  // output's tensors may be nested in vectors, tuples, pairs, optionals and
  // maps (internal/output_tensors.h), as in PyTorch.
  template <typename... Args>
  auto forward(Args&&... args) {
    core_.beforeForward(*this);
    auto output = module_->forward(std::forward<Args>(args)...);
    internal::replaceTensorsIn(output,
                               core_.afterForward(internal::tensorsIn(output)));
    return output;
  }

  // While alive, backward passes accumulate gradients locally (DDP's
  // no_sync); the first backward after it reduces the accumulated sum.
  class NoSync {
   public:
    explicit NoSync(internal::DdpCore& core)
        : core_(core), previous_(core.syncEnabled()) {
      core_.setSyncEnabled(false);
    }
    ~NoSync() { core_.setSyncEnabled(previous_); }
    NoSync(const NoSync&) = delete;
    NoSync& operator=(const NoSync&) = delete;

   private:
    internal::DdpCore& core_;
    bool previous_;
  };
  [[nodiscard]] NoSync noSync() { return NoSync(core_); }

  // Replaces DDP's allreduce with `hook` for every bucket. Once only, and
  // before the first forward.
  void registerCommHook(CommHook hook, std::string name = "custom") {
    core_.registerCommHook(std::move(hook), std::move(name));
  }
  // One of c10d's built-in hooks (ALLREDUCE, FP16_COMPRESS).
  void registerBuiltinCommHook(c10d::BuiltinCommHookType type) {
    core_.registerBuiltinCommHook(type);
  }

  ModuleHolder& module() { return module_; }
  c10d::Reducer& reducer() { return core_.reducer(); }

  // PyTorch's ddp.join(): a Join over this DDP alone.
  join::Join join(bool divide_by_initial_world_size = true,
                  join::JoinOptions options = {}) {
    return join::Join({this}, options,
                      join::JoinArgs().set(kDivideByInitialWorldSize,
                                           divide_by_initial_world_size));
  }
  // The rank whose model every rank took when the last Join finished.
  int authoritativeRank() const { return core_.authoritativeRank(); }

  std::unique_ptr<join::JoinHook> joinHook(
      const join::JoinArgs& args) override {
    return core_.makeJoinHook(args, *this);
  }
  c10::Device joinDevice() const override { return core_.device(); }
  c10::intrusive_ptr<c10d::ProcessGroup> joinProcessGroup() const override {
    return core_.processGroup();
  }

 private:
  ModuleHolder module_;
  internal::DdpCore core_;
};

}  // namespace distalgo::ddp
