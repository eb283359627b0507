// DistributedDataParallel as a Joinable: what a rank that ran out of inputs
// does in place of each training iteration of the others, and the final
// model sync (PyTorch's _DDPJoinHook).

#include <ATen/ops/full.h>
#include <ATen/ops/zeros.h>

#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "ddp/internal/comm_hook_adapter.h"
#include "ddp/internal/gradient_views.h"
#include "distalgo/ddp/comm_hook.h"
#include "distalgo/ddp/distributed_data_parallel.h"
#include "distalgo/ddp/internal/ddp_core.h"
#include "internal/check.h"

namespace distalgo::ddp::internal {
namespace {

class DdpJoinHook : public join::JoinHook {
 public:
  DdpJoinHook(DdpCore& core, const join::Joinable& self)
      : core_(core), self_(self) {}
  void mainHook() override { core_.shadowIteration(self_); }
  void postHook(bool is_last_joiner) override {
    core_.syncFinalModel(is_last_joiner);
  }

 private:
  DdpCore& core_;
  const join::Joinable& self_;
};

void wait(const c10::intrusive_ptr<c10d::Work>& work) { work->wait(); }

}  // namespace

std::unique_ptr<join::JoinHook> DdpCore::makeJoinHook(
    const join::JoinArgs& args, join::Joinable& self) {
  divide_by_initial_world_size_ = args.get(kDivideByInitialWorldSize);
  return std::make_unique<DdpJoinHook>(*this, self);
}

int DdpCore::findCommonRank(bool consider) {
  std::vector<at::Tensor> rank{
      at::full({1}, consider ? pg_->getRank() : -1,
               at::TensorOptions().device(device()).dtype(at::kLong))};
  wait(pg_->allreduce(rank, c10d::AllreduceOptions{c10d::ReduceOp::MAX}));
  return static_cast<int>(rank[0].item<int64_t>());
}

// Every collective of one training iteration, in the order a training rank
// issues them, with zeros for this rank's part.
void DdpCore::shadowIteration(const join::Joinable& self) {
  // The one-time bucket rebuild broadcasts, if the others rebuild now.
  reducer_->rebuild_buckets();
  if (syncsBuffersBeforeForward()) syncBuffers(findCommonRank(false));
  // Does this iteration's backward reduce on the training ranks? The first
  // joinable's heartbeat said so; otherwise the training ranks tell.
  bool reduces = self.roundStepFlags() != 0;
  if (!self.joinConfig().is_first_joinable) {
    std::vector<at::Tensor> requires_sync{
        at::zeros({1}, at::TensorOptions().device(device()))};
    wait(pg_->allreduce(requires_sync));
    reduces = requires_sync[0].item<float>() != 0;
  }
  // The next shadowed forward syncs buffers only after a reducing one.
  require_forward_param_sync_ = reduces;
  if (!reduces) return;
  // One zero bucket per real one, through the registered hook (or the
  // default allreduce), in the reducer's bucket order.
  auto buckets = reducer_->get_grad_buckets(/*return_zero_tensors=*/true);
  std::vector<c10::intrusive_ptr<c10::ivalue::Future>> futures;
  // What each result must match, taken before a hook may replace a bucket's
  // buffer (e.g. with its compressed copy).
  std::vector<at::Tensor> buffers;
  for (auto& bucket : buckets) {
    buffers.push_back(bucket.getBuffer());
    futures.push_back(reducer_->run_comm_hook(bucket));
  }
  for (auto& future : futures) {
    future->wait();
    if (future->hasError()) future->value();  // rethrows the error
  }
  at::Tensor used_counts;
  if (options_.find_unused_parameters) {
    std::vector<at::Tensor> used{reducer_->get_local_used_map_on_device()};
    wait(pg_->allreduce(used));
    used_counts = used[0].cpu();
  }
  writeReducedGradients(buckets, buffers, futures, used_counts);
  reducer_->push_rebuilt_params_for_all_indices();
}

void DdpCore::writeReducedGradients(
    const std::vector<c10d::GradBucket>& buckets,
    const std::vector<at::Tensor>& buffers,
    const std::vector<c10::intrusive_ptr<c10::ivalue::Future>>& futures,
    const at::Tensor& used_counts) {
  std::unordered_map<const c10::TensorImpl*, std::size_t> index_of;
  for (std::size_t i = 0; i < parameters_.size(); ++i) {
    index_of[parameters_[i].unsafeGetTensorImpl()] = i;
  }
  // Every result is checked before any gradient is written, as in the
  // training ranks' backward.
  std::vector<at::Tensor> results;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    at::Tensor reduced = firstTensorOf(futures[b]->value());
    if (!reduced.defined()) {
      // The hook's result, known only now: std::runtime_error, as out of
      // backward() on the training ranks (docs/errors.md).
      throw std::runtime_error(
          c10::str("distalgo::DistributedDataParallel: the communication "
                   "hook's future holds no tensor (bucket ",
                   b, ")"));
    }
    // The default allreduce (no hook registered) always fits.
    if (!hook_name_.empty()) {
      checkHookResult(hook_name_, pg_->getRank(), b, buffers[b], reduced);
    }
    results.push_back(std::move(reduced));
  }
  at::NoGradGuard no_grad;
  for (std::size_t b = 0; b < buckets.size(); ++b) {
    // The hook reduced a copy of the zero bucket: the same layout. The
    // offsets come from the buffer before the hook ran (a hook may have put
    // a compressed one in the bucket).
    c10d::GradBucket layout = buckets[b];
    at::Tensor buffer = buffers[b];  // c10d takes it by reference
    layout.setBuffer(buffer);
    const auto parameters = layout.getParameters();
    const auto gradients = gradientViews(results[b], buffers[b],
                                         layout.getGradients(), parameters);
    for (std::size_t i = 0; i < parameters.size(); ++i) {
      // A parameter no training rank used keeps its gradient, as there.
      if (used_counts.defined() &&
          used_counts[index_of.at(parameters[i].unsafeGetTensorImpl())]
                  .item<int>() == 0) {
        continue;
      }
      at::Tensor& grad = parameters[i].mutable_grad();
      if (grad.defined()) {
        grad.copy_(gradients[i]);
      } else {
        grad = gradients[i].clone();
      }
    }
  }
}

void DdpCore::syncFinalModel(bool is_last_joiner) {
  const int source = findCommonRank(is_last_joiner);
  DISTALGO_CHECK_STATE(source >= 0,
                       "distalgo::DistributedDataParallel: no rank joined "
                       "last; the join loop is broken");
  authoritative_rank_ = source;
  at::NoGradGuard no_grad;
  broadcastFrom(source, moduleStates());
}

}  // namespace distalgo::ddp::internal
