#include "distalgo/hooks/bf16_compress.h"

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

#include <exception>
#include <string>

#include "distalgo/hooks/default_hooks.h"
#include "internal/check.h"

namespace distalgo::hooks {
namespace {

// A backend's error `message` that is Gloo's own wording when it meets
// bfloat16 becomes a std::invalid_argument that names the way out.
void checkBackendMovesBf16(const std::string& message) {
  DISTALGO_CHECK_ARG(
      message.find("Invalid scalar type") == std::string::npos,
      "bf16CompressWrapper: the wrapped hook passed its bfloat16 buffer to a "
      "backend that cannot move bfloat16 (Gloo in libtorch 1.13); sum it with "
      "allreduceBf16 instead. The backend said: ",
      message);
}

// Copies the future's (bfloat16) tensor into `buffer`, the bucket's own.
c10::intrusive_ptr<c10::ivalue::Future> decompressBf16Into(
    const c10::intrusive_ptr<c10::ivalue::Future>& future,
    const at::Tensor& buffer) {
  return future->then(
      [buffer](c10::ivalue::Future& done) {
        if (done.hasError()) {
          checkBackendMovesBf16(done.tryRetrieveErrorMessage());
          std::rethrow_exception(done.exception_ptr());
        }
        buffer.copy_(ddp::firstTensorOf(done.value()));
        return c10::IValue(buffer);
      },
      c10::TensorType::get());
}

}  // namespace

ddp::CommHook bf16CompressHook(c10::intrusive_ptr<c10d::ProcessGroup> pg,
                               HalfSum half_sum) {
  return bf16CompressWrapper(allreduceHook(std::move(pg), half_sum));
}

ddp::CommHook bf16CompressWrapper(ddp::CommHook hook) {
  return [hook = std::move(hook)](ddp::GradBucket& bucket) {
    at::Tensor buffer = bucket.buffer();
    bucket.setBuffer(buffer.to(at::kBFloat16));
    c10::intrusive_ptr<c10::ivalue::Future> future;
    try {
      future = hook(bucket);
    } catch (const c10::Error& error) {
      checkBackendMovesBf16(error.what_without_backtrace());
      throw;
    }
    return decompressBf16Into(future, buffer);
  };
}

}  // namespace distalgo::hooks
