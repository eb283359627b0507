#include "distalgo/hooks/default_hooks.h"

#include <ATen/core/ivalue.h>

#include "distalgo/hooks/bf16_allreduce.h"
#include "hooks/internal/reduced_future.h"

namespace distalgo::hooks {

ddp::CommHook allreduceHook(c10::intrusive_ptr<c10d::ProcessGroup> pg) {
  return [pg = std::move(pg)](ddp::GradBucket& bucket) {
    const at::Tensor& buffer = bucket.buffer();
    buffer.div_(pg->getSize());
    // Gloo cannot sum bfloat16 (e.g. under bf16CompressWrapper).
    if (buffer.scalar_type() == at::kBFloat16) {
      return allreduceBf16(pg, buffer);
    }
    std::vector<at::Tensor> tensors{buffer};
    return pg->allreduce(tensors)->getFuture();
  };
}

ddp::CommHook noopHook() {
  return [](ddp::GradBucket& bucket) {
    return internal::completedFuture(bucket.buffer());
  };
}

}  // namespace distalgo::hooks
