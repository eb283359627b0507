#include "distalgo/ddp/comm_hook.h"

#include <stdexcept>

namespace distalgo::ddp::internal {
namespace {

class CallableCommHook : public c10d::CommHookInterface {
 public:
  CallableCommHook(CommHook hook, std::string name)
      : hook_(std::move(hook)), name_(std::move(name)) {}

  c10::intrusive_ptr<c10::ivalue::Future> runHook(
      c10d::GradBucket& bucket) override {
    auto future = hook_(bucket);
    if (!future) {
      throw std::runtime_error("communication hook '" + name_ +
                               "' returned no future");
    }
    return future;
  }

  at::Tensor parseHookResult(const c10::IValue& result) override {
    if (result.isTensor()) return result.toTensor();
    if (result.isTensorList()) {
      const auto list = result.toTensorVector();
      if (!list.empty()) return list[0];
    }
    if (result.isList()) {
      const auto list = result.toListRef();
      if (!list.empty() && list[0].isTensor()) return list[0].toTensor();
    }
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

}  // namespace distalgo::ddp::internal
