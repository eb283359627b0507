#pragma once

// A module that checkpoints another (PyTorch's CheckpointWrapper, reentrant):
// its forward keeps only the inputs, and backward recomputes the wrapped
// forward (see checkpoint.h for the implementation and offload).
//
// Parameter names stay as without the wrapper: instead of holding the
// wrapped module as a child (which would prefix every name, as PyTorch's
// `_checkpoint_wrapped_module.` does before its state-dict hooks strip it),
// the wrapper registers the wrapped module's children, parameters and
// buffers as its own, under their own names. They are the same tensors and
// modules, so optimizers, to() and state dicts see no difference, and a
// wrapper can replace its module inside a parent
// (applyActivationCheckpointing).
//
// Example:
//   CheckpointWrapper block(torch::nn::Linear(8, 8));
//   auto y = block->forward(x);                  // one-tensor modules
//   CheckpointWrapper mix(MixModule(),
//                         CheckpointOptions{.offload_to_cpu = true});
//   auto z = mix->call(a, b, 0.5);               // any forward signature

#include <ATen/core/Tensor.h>
#include <c10/util/Optional.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/container/any.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/pimpl.h>

#include <cstddef>
#include <memory>
#include <ostream>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "distalgo/checkpoint/checkpoint.h"

namespace distalgo::checkpoint {
namespace internal {

// Takes a tensor argument into `tensors` and leaves an empty slot behind, so
// that the recomputation's closure keeps no tensor alive; other arguments
// are kept as they are.
template <typename T>
std::decay_t<T> takeTensor(T&& arg, std::vector<at::Tensor>& tensors) {
  // Tensors inside other arguments would be replayed as constants and get
  // no gradient: refuse them rather than lose gradients silently.
  static_assert(
      !std::is_same_v<std::decay_t<T>, std::vector<at::Tensor>> &&
          !std::is_same_v<std::decay_t<T>, c10::optional<at::Tensor>> &&
          !std::is_same_v<std::decay_t<T>, at::TensorList>,
      "CheckpointWrapper::call checkpoints at::Tensor arguments only; pass "
      "each tensor as an argument of its own");
  if constexpr (std::is_same_v<std::decay_t<T>, at::Tensor>) {
    tensors.push_back(arg);
    return at::Tensor();
  } else {
    return std::forward<T>(arg);
  }
}

// The inverse of takeTensor: fills a tensor slot from `tensors`.
template <typename T>
T putTensor(const T& slot, const std::vector<at::Tensor>& tensors,
            std::size_t& next) {
  if constexpr (std::is_same_v<T, at::Tensor>) {
    return tensors.at(next++);
  } else {
    return slot;
  }
}

// Calls `module` with `rest`, its tensor slots filled from `tensors` in order.
template <typename Tuple, std::size_t... I>
at::Tensor callFilled(torch::nn::AnyModule& module, const Tuple& rest,
                      const std::vector<at::Tensor>& tensors,
                      std::index_sequence<I...>) {
  std::size_t next = 0;
  // Braced initialization evaluates left to right: tensors keep their order.
  Tuple filled{putTensor(std::get<I>(rest), tensors, next)...};
  return std::apply(
      [&](auto&... a) { return module.forward<at::Tensor>(a...); }, filled);
}

}  // namespace internal

class CheckpointWrapperImpl : public torch::nn::Module {
 public:
  // Wraps any module whose forward returns one tensor.
  template <
      typename ModuleType,
      typename = std::enable_if_t<
          !std::is_same_v<std::decay_t<ModuleType>, torch::nn::AnyModule> &&
          !std::is_same_v<std::decay_t<ModuleType>, torch::nn::Sequential>>>
  explicit CheckpointWrapperImpl(ModuleType&& module,
                                 CheckpointOptions options = {})
      : CheckpointWrapperImpl(
            torch::nn::AnyModule(std::forward<ModuleType>(module)), options) {}
  explicit CheckpointWrapperImpl(const torch::nn::AnyModule& module,
                                 CheckpointOptions options = {});
  // A Sequential (which AnyModule cannot hold: its forward is a template),
  // called with one tensor.
  explicit CheckpointWrapperImpl(torch::nn::Sequential sequential,
                                 CheckpointOptions options = {});

  // The wrapped forward for one tensor; what a Sequential calls.
  at::Tensor forward(const at::Tensor& input);

  // The wrapped forward for any arguments, of the exact types the wrapped
  // forward declares (AnyModule checks them), returning one tensor: the
  // at::Tensor arguments are checkpointed, the others are copied and passed
  // again to the recomputation (tensor lists and optional tensors are
  // refused at compile time: they would get no gradient).
  template <typename... Args>
  at::Tensor call(Args&&... args) {
    std::vector<at::Tensor> inputs;
    std::tuple<std::decay_t<Args>...> rest{
        internal::takeTensor(std::forward<Args>(args), inputs)...};
    torch::nn::AnyModule module = module_;
    auto run = [module, rest](const std::vector<at::Tensor>& tensors) mutable {
      return std::vector<at::Tensor>{internal::callFilled(
          module, rest, tensors, std::index_sequence_for<Args...>{})};
    };
    return runCheckpointed(std::move(run), inputs);
  }

  // Sets training mode here and in the wrapped module, which is not a child.
  void train(bool on = true) override;
  void pretty_print(std::ostream& stream) const override;

  // The wrapped module.
  const std::shared_ptr<torch::nn::Module>& wrapped() const { return inner_; }
  const CheckpointOptions& options() const { return options_; }

 private:
  CheckpointWrapperImpl(torch::nn::AnyModule callable,
                        std::shared_ptr<torch::nn::Module> inner,
                        CheckpointOptions options);
  at::Tensor runCheckpointed(Recompute run,
                             const std::vector<at::Tensor>& inputs);

  torch::nn::AnyModule module_;               // what forward calls
  std::shared_ptr<torch::nn::Module> inner_;  // what it wraps
  CheckpointOptions options_;
};
TORCH_MODULE(CheckpointWrapper);

}  // namespace distalgo::checkpoint
