#include "distalgo/hooks/fp16_compress.h"

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

#include "distalgo/hooks/default_hooks.h"

namespace distalgo::hooks {
namespace {

// Copies the future's (float16) tensor into `buffer`, the bucket's own.
c10::intrusive_ptr<c10::ivalue::Future> decompressFp16Into(
    const c10::intrusive_ptr<c10::ivalue::Future>& future,
    const at::Tensor& buffer) {
  return future->then(
      [buffer](c10::ivalue::Future& done) {
        buffer.copy_(ddp::firstTensorOf(done.value()));
        return c10::IValue(buffer);
      },
      c10::TensorType::get());
}

}  // namespace

ddp::CommHook fp16CompressHook(c10::intrusive_ptr<c10d::ProcessGroup> pg,
                               HalfSum half_sum) {
  return fp16CompressWrapper(allreduceHook(std::move(pg), half_sum));
}

ddp::CommHook fp16CompressWrapper(ddp::CommHook hook) {
  return [hook = std::move(hook)](ddp::GradBucket& bucket) {
    at::Tensor buffer = bucket.buffer();
    at::Tensor compressed = buffer.to(at::kHalf);
    bucket.setBuffer(compressed);
    return decompressFp16Into(hook(bucket), buffer);
  };
}

}  // namespace distalgo::hooks
