#include "distalgo/ddp/comm_hook.h"

#include <stdexcept>

namespace distalgo::ddp {

at::Tensor firstTensorOf(const c10::IValue& value) {
  if (value.isTensor()) return value.toTensor();
  if (value.isTensorList()) {
    const auto list = value.toTensorVector();
    if (!list.empty()) return list[0];
  }
  if (value.isList()) {
    const auto list = value.toListRef();
    if (!list.empty() && list[0].isTensor()) return list[0].toTensor();
  }
  return {};
}

namespace internal {
namespace {

class CallableCommHook : public c10d::CommHookInterface {
 public:
  CallableCommHook(CommHook hook, std::string name)
      : hook_(std::move(hook)), name_(std::move(name)) {}

  c10::intrusive_ptr<c10::ivalue::Future> runHook(
      c10d::GradBucket& bucket) override {
    GradBucket view(bucket);
    auto future = hook_(view);
    if (!future) {
      throw std::runtime_error("communication hook '" + name_ +
                               "' returned no future");
    }
    return future;
  }

  at::Tensor parseHookResult(const c10::IValue& result) override {
    at::Tensor tensor = firstTensorOf(result);
    if (tensor.defined()) return tensor;
    throw std::runtime_error(
        "communication hook '" + name_ +
        "' must return a future of a tensor or of a list of tensors; its "
        "future holds " +
        result.tagKind());
  }

 private:
  CommHook hook_;
  std::string name_;
};

}  // namespace

std::unique_ptr<c10d::CommHookInterface> adaptCommHook(CommHook hook,
                                                       std::string name) {
  return std::make_unique<CallableCommHook>(std::move(hook), std::move(name));
}

}  // namespace internal
}  // namespace distalgo::ddp
