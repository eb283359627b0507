#include "zero/internal/overlap_state.h"

#include <torch/csrc/autograd/engine.h>
#include <torch/csrc/autograd/graph_task.h>

#include <unordered_map>

#include "distalgo/zero/state_bytes.h"
#include "internal/check.h"
#include "zero/internal/state_transfer.h"

namespace distalgo::zero::internal {
namespace {

std::vector<const c10::TensorImpl*> impls(const std::vector<at::Tensor>& ps) {
  std::vector<const c10::TensorImpl*> out;
  out.reserve(ps.size());
  for (const auto& p : ps) out.push_back(p.unsafeGetTensorImpl());
  return out;
}

// The options of `from`'s groups, copied onto `to`'s (same group count).
void copyOptions(const torch::optim::Optimizer& from,
                 torch::optim::Optimizer& to) {
  for (std::size_t g = 0; g < to.param_groups().size(); ++g) {
    to.param_groups()[g].set_options(from.param_groups()[g].options().clone());
  }
}

}  // namespace

OverlapState::OverlapState(ZeroRedundancyOptimizer& zero,
                           const c10d::Reducer& reducer, bool shard_buckets)
    : zero_(zero),
      pg_(zero.joinProcessGroup()),
      reducer_(reducer),
      shard_buckets_(shard_buckets) {}

std::shared_ptr<OverlapState> OverlapState::create(
    ZeroRedundancyOptimizer& zero, const c10d::Reducer& reducer,
    bool shard_buckets) {
  DISTALGO_CHECK_ARG(zero.overlapWithDdp(), kOverlapHook,
                     "the ZeroRedundancyOptimizer was built without "
                     "ZeroOptions::overlap_with_ddp; build it with "
                     "overlap_with_ddp = true or call its step() after "
                     "backward instead");
  auto state = std::make_shared<OverlapState>(zero, reducer, shard_buckets);
  const bool attached =
      zero.attachOverlap(ZeroRedundancyOptimizer::OverlapKey(), state);
  DISTALGO_CHECK_STATE(attached, kOverlapHook,
                       "this ZeroRedundancyOptimizer is already driven by "
                       "another hook (one hook per optimizer)");
  return state;
}

void OverlapState::checkInsideBackward() {
  DISTALGO_CHECK_STATE(
      torch::autograd::get_current_graph_task_exec_info() != nullptr,
      kOverlapHook,
      "called outside a backward pass (as DDP's Join does on a joined rank); "
      "the ZeRO overlap supports neither Join nor running the hook by hand");
}

void OverlapState::record(ddp::GradBucket& bucket,
                          c10::intrusive_ptr<c10::ivalue::Future> reduced) {
  if (!overlapped()) {
    if (seen_.empty()) {
      // Runs when backward ends: before the reducer's finalization, or after
      // it in a static graph's first iteration (reduced from a callback).
      torch::autograd::Engine::get_default_engine().queue_callback(
          [this] { finishWarmUp(); });
    }
    seen_.push_back(seeBucket(bucket, std::move(reduced)));
    return;
  }
  const auto b = bucket.index();
  if (b == 0) seen_.clear();
  // The reducer calls hooks in bucket order, starting at 0 each iteration.
  TORCH_CHECK(b == seen_.size(), kOverlapHook, "bucket ", b, " came after ",
              seen_.size(), " buckets");
  seen_.push_back(seeBucket(bucket, std::move(reduced)));
  DISTALGO_CHECK_STATE(
      b < layout_.size() && impls(seen_.back().parameters) == layout_[b],
      kOverlapHook, "DDP bucket ", b,
      " differs from the one the bucket partition was built on; DDP's "
      "buckets must not change once rebuilt");
}

void OverlapState::finishWarmUp() {
  // Cleared first, so the next iteration queues its step even after a throw.
  const auto seen = std::move(seen_);
  seen_.clear();
  std::vector<at::Tensor> parameters;
  std::vector<at::Tensor> gradients;
  for (const auto& bucket : seen) {
    const auto reduced = reducedGradients(bucket);
    parameters.insert(parameters.end(), bucket.parameters.begin(),
                      bucket.parameters.end());
    gradients.insert(gradients.end(), reduced.begin(), reduced.end());
  }
  // What step() does after backward, on the same gradients.
  stepWith(zero_.localOptimizer(), parameters, gradients);
  zero_.broadcastShards(ZeroRedundancyOptimizer::OverlapKey());
  // Pending until DDP's reducer has rebuilt its buckets (the forward after
  // the first iteration that reduced; after the second with static_graph);
  // never with find_unused_parameters without static_graph.
  if (!reducer_.should_rebuild_buckets()) buildBucketPartition(seen);
}

void OverlapState::buildBucketPartition(const std::vector<SeenBucket>& seen) {
  std::vector<std::vector<std::int64_t>> numels;
  std::unordered_map<const c10::TensorImpl*, std::size_t> bucket_of;
  for (std::size_t b = 0; b < seen.size(); ++b) {
    auto& sizes = numels.emplace_back();
    for (const auto& p : seen[b].parameters) {
      sizes.push_back(p.numel());
      bucket_of[p.unsafeGetTensorImpl()] = b;
    }
  }
  auto pieces = assignBucketsToRanks(numels, zero_.worldSize(), shard_buckets_);

  // Every parameter is in some rank's shard, with its group.
  std::unordered_map<const c10::TensorImpl*, std::size_t> group_of;
  for (const auto& shard : zero_.partition()) {
    for (const auto& entry : shard)
      group_of[entry.parameter.unsafeGetTensorImpl()] = entry.group;
  }
  ZeroRedundancyOptimizer::OverlapKey key;
  const auto& factory = zero_.localOptimizerFactory(key);
  torch::optim::Optimizer& local = zero_.localOptimizer();
  std::unordered_map<const c10::TensorImpl*, int> owner;
  for (const auto& piece : pieces) {
    const auto& bucket = seen[piece.bucket].parameters;
    std::vector<torch::optim::OptimizerParamGroup> groups;
    for (const auto& group : local.param_groups()) {
      groups.emplace_back(std::vector<at::Tensor>{}, group.options().clone());
    }
    for (std::size_t i = piece.offset; i < piece.offset + piece.count; ++i) {
      const auto it = group_of.find(bucket[i].unsafeGetTensorImpl());
      DISTALGO_CHECK_STATE(it != group_of.end(), kOverlapHook, "parameter ", i,
                           " of DDP bucket ", piece.bucket,
                           " is not a parameter of the "
                           "ZeroRedundancyOptimizer");
      owner[bucket[i].unsafeGetTensorImpl()] = piece.rank;
      groups[it->second].params().push_back(bucket[i]);
    }
    if (piece.rank == zero_.rank()) {
      optimizers_[piece.bucket] = factory(std::move(groups));
    }
  }
  // Parameters in no bucket (frozen in DDP) are never stepped: state dropped.
  transferState(
      *pg_, zero_.partition(), local, factory,
      [&](const at::Tensor& p) {
        const auto it = owner.find(p.unsafeGetTensorImpl());
        return it == owner.end() ? -1 : it->second;
      },
      [&](const at::Tensor& p) -> torch::optim::Optimizer& {
        return *optimizers_.at(bucket_of.at(p.unsafeGetTensorImpl()));
      });
  local.state().clear();  // it keeps the options users may change
  for (const auto& bucket : seen) layout_.push_back(impls(bucket.parameters));
  pieces_ = std::move(pieces);
}

void OverlapState::stepBucket(std::size_t b) {
  const auto& bucket = seen_.at(b);
  for (const auto& piece : pieces_) {
    if (piece.bucket != b) continue;
    const auto begin = static_cast<std::ptrdiff_t>(piece.offset);
    const auto end = begin + static_cast<std::ptrdiff_t>(piece.count);
    const std::vector<at::Tensor> parameters(bucket.parameters.begin() + begin,
                                             bucket.parameters.begin() + end);
    if (piece.rank == zero_.rank()) {
      const auto reduced = reducedGradients(bucket);
      auto& optimizer = *optimizers_.at(b);
      copyOptions(zero_.localOptimizer(), optimizer);
      stepWith(optimizer, parameters,
               {reduced.begin() + begin, reduced.begin() + end});
    }
    broadcasts_.emplace_back(*pg_, parameters, piece.rank);
  }
}

void OverlapState::waitForBroadcasts() {
  auto broadcasts = std::move(broadcasts_);
  broadcasts_.clear();
  for (auto& broadcast : broadcasts) broadcast.finish();
}

std::int64_t OverlapState::stateBytes() const {
  std::int64_t bytes = 0;
  for (const auto& [b, optimizer] : optimizers_) {
    bytes += optimizerStateBytes(*optimizer);
  }
  return bytes;
}

}  // namespace distalgo::zero::internal
