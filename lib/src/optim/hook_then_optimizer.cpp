#include "distalgo/optim/hook_then_optimizer.h"

#include <ATen/core/ivalue.h>

#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>

#include "internal/check.h"

namespace distalgo::optim {
namespace {

constexpr const char* kHookThenOptimizer =
    "distalgo::optim::hookThenOptimizer: ";

// The parameters a hook may step; holding them keeps their addresses unique.
class ParamSet {
 public:
  explicit ParamSet(std::vector<at::Tensor> params)
      : params_(std::move(params)) {
    for (const at::Tensor& p : params_) impls_.insert(p.unsafeGetTensorImpl());
  }
  bool contains(const at::Tensor& param) const {
    return impls_.count(param.unsafeGetTensorImpl()) > 0;
  }

 private:
  std::vector<at::Tensor> params_;
  std::unordered_set<const c10::TensorImpl*> impls_;
};

}  // namespace

ddp::CommHook hookThenOptimizer(
    ddp::CommHook hook, std::shared_ptr<FunctionalOptimizer> optimizer,
    std::optional<std::vector<at::Tensor>> params_to_optimize) {
  DISTALGO_CHECK_ARG(hook, kHookThenOptimizer, "expected a hook, found none");
  DISTALGO_CHECK_ARG(optimizer, kHookThenOptimizer,
                     "expected an optimizer, found nullptr");
  std::shared_ptr<const ParamSet> subset;
  if (params_to_optimize) {
    subset = std::make_shared<ParamSet>(std::move(*params_to_optimize));
  }
  return [hook = std::move(hook), optimizer = std::move(optimizer),
          subset = std::move(subset)](ddp::GradBucket& bucket) {
    // The bucket object dies when this call returns, and `hook` may replace
    // its buffer (fp16 compression does): take the buffer and its
    // per-parameter views now.
    at::Tensor buffer = bucket.buffer();
    std::vector<at::Tensor> gradients = bucket.gradients();
    std::vector<at::Tensor> parameters = bucket.parameters();
    return hook(bucket)->then(
        [optimizer, subset, buffer, gradients = std::move(gradients),
         parameters = std::move(parameters)](c10::ivalue::Future& done) {
          at::Tensor reduced = ddp::firstTensorOf(done.value());
          if (!reduced.defined()) {
            // Not a check of an argument: the hook's result is known only
            // in backward, where std::runtime_error reports it
            // (docs/errors.md).
            throw std::runtime_error(c10::str(
                kHookThenOptimizer,
                "the wrapped hook's future must hold a tensor or a list of "
                "tensors; it holds ",
                done.value().tagKind()));
          }
          // Hooks that reduce out of place: the views must see the result.
          if (!reduced.is_same(buffer)) buffer.copy_(reduced);
          for (std::size_t i = 0; i < parameters.size(); ++i) {
            if (!subset || subset->contains(parameters[i])) {
              optimizer->stepParam(parameters[i], gradients[i]);
            }
          }
          return c10::IValue(buffer);
        },
        c10::TensorType::get());
  };
}

}  // namespace distalgo::optim
