#include "distalgo/hooks/bf16_compress.h"

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

#include <exception>
#include <stdexcept>
#include <string>

#include "distalgo/hooks/default_hooks.h"

namespace distalgo::hooks {
namespace {

// Gloo's own wording when it meets bfloat16.
bool isUnsupportedDtype(const std::string& message) {
  return message.find("Invalid scalar type") != std::string::npos;
}

std::invalid_argument unsupportedDtype(const std::string& message) {
  return std::invalid_argument(
      "bf16CompressWrapper: the wrapped hook passed its bfloat16 buffer to a "
      "backend that cannot move bfloat16 (Gloo in libtorch 1.13); sum it with "
      "allreduceBf16 instead. The backend said: " +
      message);
}

// Copies the future's (bfloat16) tensor into `buffer`, the bucket's own.
c10::intrusive_ptr<c10::ivalue::Future> decompressBf16Into(
    const c10::intrusive_ptr<c10::ivalue::Future>& future,
    const at::Tensor& buffer) {
  return future->then(
      [buffer](c10::ivalue::Future& done) mutable {
        if (done.hasError()) {
          const std::string message = done.tryRetrieveErrorMessage();
          if (isUnsupportedDtype(message)) throw unsupportedDtype(message);
          std::rethrow_exception(done.exception_ptr());
        }
        buffer.copy_(ddp::firstTensorOf(done.value()));
        return c10::IValue(buffer);
      },
      c10::TensorType::get());
}

}  // namespace

ddp::CommHook bf16CompressHook(c10::intrusive_ptr<c10d::ProcessGroup> pg) {
  return bf16CompressWrapper(allreduceHook(std::move(pg)));
}

ddp::CommHook bf16CompressWrapper(ddp::CommHook hook) {
  return [hook = std::move(hook)](ddp::GradBucket& bucket) {
    at::Tensor buffer = bucket.buffer();
    bucket.setBuffer(buffer.to(at::kBFloat16));
    c10::intrusive_ptr<c10::ivalue::Future> future;
    try {
      future = hook(bucket);
    } catch (const c10::Error& error) {
      const std::string message = error.what_without_backtrace();
      if (isUnsupportedDtype(message)) throw unsupportedDtype(message);
      throw;
    }
    return decompressBf16Into(future, buffer);
  };
}

}  // namespace distalgo::hooks
