#include "distalgo/hooks/default_hooks.h"

#include <ATen/core/ivalue.h>

#include "distalgo/hooks/bf16_allreduce.h"
#include "hooks/internal/reduced_future.h"
#include "hooks/internal/sum_by_chunks.h"
#include "internal/check.h"

namespace distalgo::hooks {

ddp::CommHook allreduceHook(c10::intrusive_ptr<c10d::ProcessGroup> pg,
                            HalfSum half_sum) {
  // fp16CompressHook and bf16CompressHook wrap this one.
  DISTALGO_CHECK_ARG(pg,
                     "distalgo::hooks::allreduceHook: expected a process "
                     "group, got null");
  return [pg = std::move(pg), half_sum](ddp::GradBucket& bucket) {
    const at::Tensor& buffer = bucket.buffer();
    buffer.div_(pg->getSize());
    const bool once = half_sum == HalfSum::kFloat32Once;
    // Gloo of libtorch 1.13 cannot sum bfloat16 (e.g. under
    // bf16CompressWrapper), 2.x's rounds every partial sum.
    if (once && buffer.scalar_type() == at::kBFloat16) {
      return allreduceBf16(pg, buffer);
    }
    // Gloo sums float16 one element at a time in float16 arithmetic, slower
    // than a fast link (fp16CompressWrapper): summed in float32 by chunks
    // instead, and rounded once.
    if (once && buffer.scalar_type() == at::kHalf && !canSumBf16(*pg)) {
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
