#include "ddp/internal/comm_hook_adapter.h"

#include <stdexcept>

namespace distalgo::ddp::internal {
namespace {

// Its errors are std::runtime_error (docs/errors.md): they surface out of
// backward() and report what a hook did while it ran, which no check of an
// argument or of a state could have refused beforehand.
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

}  // namespace distalgo::ddp::internal
