#include "distalgo/hooks/bf16_allreduce.h"

#include <ATen/ATen.h>

#include <exception>
#include <vector>

#include "hooks/internal/sum_by_chunks.h"
#include "internal/check.h"

namespace distalgo::hooks {
namespace {

// Future::then runs its callback on failure too; the error must carry on.
void rethrowIfFailed(c10::ivalue::Future& done) {
  if (done.hasError()) std::rethrow_exception(done.exception_ptr());
}

}  // namespace

bool canSumBf16(const c10d::ProcessGroup& pg) {
  return pg.getBackendName() == "nccl";
}

c10::intrusive_ptr<c10::ivalue::Future> allreduceBf16(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const at::Tensor& tensor) {
  DISTALGO_CHECK_ARG(tensor.scalar_type() == at::kBFloat16,
                     "allreduceBf16: expected a bfloat16 tensor, got ",
                     tensor.scalar_type(), " (backend ", pg->getBackendName(),
                     ")");
  if (!canSumBf16(*pg)) {
    return internal::sumByChunks(pg, tensor, tensor,
                                 quantization::internal::kBfloat16Format);
  }
  std::vector<at::Tensor> tensors{tensor};
  return pg->allreduce(tensors)->getFuture()->then(
      [tensor](c10::ivalue::Future& done) {
        rethrowIfFailed(done);
        return c10::IValue(tensor);
      },
      c10::TensorType::get());
}

}  // namespace distalgo::hooks
