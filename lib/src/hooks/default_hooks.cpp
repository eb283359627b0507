#include "distalgo/hooks/default_hooks.h"

#include <ATen/core/ivalue.h>

#include "distalgo/hooks/bf16_allreduce.h"
#include "hooks/internal/reduced_future.h"
#include "hooks/internal/sum_by_chunks.h"

namespace distalgo::hooks {

ddp::CommHook allreduceHook(c10::intrusive_ptr<c10d::ProcessGroup> pg) {
  return [pg = std::move(pg)](ddp::GradBucket& bucket) {
    const at::Tensor& buffer = bucket.buffer();
    buffer.div_(pg->getSize());
    // Gloo cannot sum bfloat16 (e.g. under bf16CompressWrapper).
    if (buffer.scalar_type() == at::kBFloat16) {
      return allreduceBf16(pg, buffer);
    }
    // Gloo sums float16 one element at a time in float16 arithmetic, slower
    // than a fast link (fp16CompressWrapper): summed in float32 by chunks
    // instead, and rounded once.
    if (buffer.scalar_type() == at::kHalf && !canSumBf16(*pg)) {
      return internal::sumByChunks(pg, buffer, buffer,
                                   quantization::internal::kHalfFormat);
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
