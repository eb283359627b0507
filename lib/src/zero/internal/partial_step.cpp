#include "zero/internal/partial_step.h"

#include <ATen/ATen.h>
#include <c10/util/StringUtil.h>

#include <stdexcept>
#include <unordered_map>

#include "ddp/internal/gradient_views.h"
#include "distalgo/ddp/comm_hook.h"

namespace distalgo::zero::internal {

SeenBucket seeBucket(ddp::GradBucket& bucket,
                     c10::intrusive_ptr<c10::ivalue::Future> reduced) {
  return {bucket.parameters(), bucket.gradients(), bucket.buffer(),
          std::move(reduced)};
}

std::vector<at::Tensor> reducedGradients(const SeenBucket& bucket) {
  bucket.reduced->wait();
  at::Tensor result = ddp::firstTensorOf(bucket.reduced->value());
  if (!result.defined() || result.numel() != bucket.buffer.numel()) {
    // The hook's result, known only in backward: std::runtime_error, as for
    // any hook's (docs/errors.md), not a check of an argument.
    throw std::runtime_error(c10::str(
        "distalgo::zero overlap: the wrapped hook's future must hold a tensor "
        "shaped like the bucket's buffer (",
        bucket.buffer.numel(), " elements)"));
  }
  return ddp::internal::gradientViews(result, bucket.buffer, bucket.gradients,
                                      bucket.parameters);
}

void stepWith(torch::optim::Optimizer& optimizer,
              const std::vector<at::Tensor>& parameters,
              const std::vector<at::Tensor>& gradients) {
  std::unordered_map<const c10::TensorImpl*, at::Tensor> given;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    given[parameters[i].unsafeGetTensorImpl()] = gradients[i];
  }
  std::vector<std::pair<at::Tensor, at::Tensor>> saved;  // parameter, grad
  for (auto& group : optimizer.param_groups()) {
    for (auto& p : group.params()) {
      saved.emplace_back(p, p.grad());
      const auto it = given.find(p.unsafeGetTensorImpl());
      p.mutable_grad() = it == given.end() ? at::Tensor() : it->second;
    }
  }
  const auto restore = [&] {
    for (auto& [p, grad] : saved) p.mutable_grad() = grad;
  };
  try {
    optimizer.step();
  } catch (...) {
    restore();
    throw;
  }
  restore();
}

PieceBroadcast::PieceBroadcast(c10d::ProcessGroup& pg,
                               std::vector<at::Tensor> parameters, int owner)
    : parameters_(std::move(parameters)), receives_(pg.getRank() != owner) {
  at::NoGradGuard no_grad;
  if (receives_) {
    std::int64_t numel = 0;
    for (const auto& p : parameters_) numel += p.numel();
    flat_ = at::empty({numel}, parameters_.front().options());
  } else {
    std::vector<at::Tensor> flat;
    flat.reserve(parameters_.size());
    for (const auto& p : parameters_) flat.push_back(p.detach().reshape(-1));
    flat_ = at::cat(flat);
  }
  c10d::BroadcastOptions options;
  options.rootRank = owner;
  std::vector<at::Tensor> tensors{flat_};
  work_ = pg.broadcast(tensors, options);
}

void PieceBroadcast::finish() {
  work_->wait();
  if (!receives_) return;
  at::NoGradGuard no_grad;
  std::int64_t offset = 0;
  for (auto& p : parameters_) {
    p.detach().copy_(flat_.narrow(0, offset, p.numel()).view_as(p));
    offset += p.numel();
  }
}

}  // namespace distalgo::zero::internal
