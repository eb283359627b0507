#include "distalgo/hooks/bf16_allreduce.h"

#include <ATen/ATen.h>

#include <exception>
#include <vector>

#include "internal/check.h"

namespace distalgo::hooks {
namespace {

c10::intrusive_ptr<c10::ivalue::Future> completed(const at::Tensor& tensor) {
  auto future =
      c10::make_intrusive<c10::ivalue::Future>(c10::TensorType::get());
  future->markCompleted(c10::IValue(tensor));
  return future;
}

// Future::then runs its callback on failure too; the error must carry on.
void rethrowIfFailed(c10::ivalue::Future& done) {
  if (done.hasError()) std::rethrow_exception(done.exception_ptr());
}

// Sums through a reduce-scatter (alltoall_base) and an allgather. Gloo moves
// float16 but not bfloat16, and a bit-for-bit reinterpretation is safe
// because nothing is summed on the wire.
c10::intrusive_ptr<c10::ivalue::Future> allreduceBf16ByChunks(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const at::Tensor& tensor) {
  const std::int64_t world = pg->getSize();
  const std::int64_t rank = pg->getRank();
  const std::int64_t n = tensor.numel();
  if (world == 1 || n == 0) return completed(tensor);
  const std::int64_t chunk = (n + world - 1) / world;

  at::Tensor padded = at::zeros({world, chunk}, tensor.options());
  padded.view(-1).narrow(0, 0, n).copy_(tensor.reshape(-1));
  // Every other rank's chunk, in rank order; this rank's own stays here.
  at::Tensor others = at::cat({padded.narrow(0, 0, rank),
                               padded.narrow(0, rank + 1, world - rank - 1)})
                          .view(-1);
  // Two vectors: Gloo's work moves from the ones it is given.
  std::vector<std::int64_t> send_splits(world, chunk);
  send_splits[rank] = 0;
  std::vector<std::int64_t> receive_splits = send_splits;
  at::Tensor send = others.view(at::kHalf);
  at::Tensor received = at::empty_like(send);
  pg->alltoall_base(received, send, receive_splits, send_splits)->wait();

  at::Tensor from_others =
      received.view(at::kBFloat16).view({world - 1, chunk});
  at::Tensor contributions =
      at::cat({from_others.narrow(0, 0, rank), padded.narrow(0, rank, 1),
               from_others.narrow(0, rank, world - 1 - rank)});
  at::Tensor reduced = contributions.to(at::kFloat).sum(0).to(at::kBFloat16);

  std::vector<at::Tensor> inputs{reduced.view(at::kHalf)};
  std::vector<std::vector<at::Tensor>> outputs(1);
  for (std::int64_t r = 0; r < world; ++r) {
    outputs[0].push_back(at::empty_like(inputs[0]));
  }
  auto work = pg->allgather(outputs, inputs);
  return work->getFuture()->then(
      [tensor, outputs, n](c10::ivalue::Future& done) mutable {
        rethrowIfFailed(done);
        at::Tensor sum =
            at::cat(outputs[0]).view(at::kBFloat16).narrow(0, 0, n);
        tensor.copy_(sum.view(tensor.sizes()));
        return c10::IValue(tensor);
      },
      c10::TensorType::get());
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
  if (!canSumBf16(*pg)) return allreduceBf16ByChunks(pg, tensor);
  std::vector<at::Tensor> tensors{tensor};
  return pg->allreduce(tensors)->getFuture()->then(
      [tensor](c10::ivalue::Future& done) {
        rethrowIfFailed(done);
        return c10::IValue(tensor);
      },
      c10::TensorType::get());
}

}  // namespace distalgo::hooks
