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
  CallableCommHook(CommHook hook, std::string name, int rank)
      : hook_(std::move(hook)), name_(std::move(name)), rank_(rank) {}

  c10::intrusive_ptr<c10::ivalue::Future> runHook(
      c10d::GradBucket& bucket) override {
    GradBucket view(bucket);
    c10::intrusive_ptr<c10::ivalue::Future> future;
    try {
      future = hook_(view);
    } catch (const c10::Error& error) {
      throw std::runtime_error(where(bucket) +
                               " threw: " + error.what_without_backtrace());
    } catch (const std::exception& error) {
      throw std::runtime_error(where(bucket) + " threw: " + error.what());
    }
    if (!future)
      throw std::runtime_error(where(bucket) + " returned no future");
    return future;
  }

  at::Tensor parseHookResult(const c10::IValue& result) override {
    at::Tensor tensor = firstTensorOf(result);
    if (tensor.defined()) return tensor;
    throw std::runtime_error(
        "communication hook '" + name_ +
        "' must return a future of a tensor or of a list of tensors; on rank " +
        std::to_string(rank_) + " its future holds " + result.tagKind());
  }

 private:
  std::string where(const c10d::GradBucket& bucket) const {
    return "communication hook '" + name_ + "' on rank " +
           std::to_string(rank_) + " (bucket " +
           std::to_string(bucket.getIndex()) + ")";
  }

  CommHook hook_;
  std::string name_;
  int rank_;
};

}  // namespace

std::unique_ptr<c10d::CommHookInterface> adaptCommHook(CommHook hook,
                                                       std::string name,
                                                       int rank) {
  return std::make_unique<CallableCommHook>(std::move(hook), std::move(name),
                                            rank);
}

}  // namespace internal
}  // namespace distalgo::ddp
