#include "hooks/internal/sum_by_chunks.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <exception>
#include <vector>

#include "hooks/internal/reduced_future.h"
#include "quantization/internal/staging.h"

namespace distalgo::hooks::internal {
namespace {

using quantization::internal::decodeWords;
using quantization::internal::encodeInto;
using quantization::internal::staging;
using quantization::internal::StagingSlot;

// The words of chunk `r` of `flat`: `chunk` of them, fewer (or none) at the
// end of the tensor.
at::Tensor chunkOf(const at::Tensor& flat, std::int64_t r, std::int64_t chunk) {
  const std::int64_t begin = std::min(r * chunk, flat.numel());
  return flat.narrow(0, begin, std::min(chunk, flat.numel() - begin));
}

// `words` copied to the front of `slot`, the rest of it zeros (+0.0 in both
// 16-bit formats).
void fillSlot(const at::Tensor& slot, const at::Tensor& words) {
  slot.narrow(0, 0, words.numel()).copy_(words);
  slot.narrow(0, words.numel(), slot.numel() - words.numel()).zero_();
}

}  // namespace

c10::intrusive_ptr<c10::ivalue::Future> sumByChunks(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, const at::Tensor& input,
    const at::Tensor& output,
    const quantization::internal::WordFormat& format) {
  const std::int64_t world = pg->getSize();
  const std::int64_t rank = pg->getRank();
  const std::int64_t n = input.numel();
  if (world == 1 || n == 0) {
    if (!output.is_same(input)) output.copy_(input);
    return completedFuture(output);
  }
  const std::int64_t chunk = (n + world - 1) / world;
  // Gloo moves 16-bit words as float16, whatever they hold.
  const at::Tensor words = input.reshape(-1).contiguous().view(at::kHalf);

  // Every other rank's chunk, in rank order; this rank's own stays here.
  // Staged: both are done with before this returns.
  at::Tensor send = staging(StagingSlot::kSent, (world - 1) * chunk, at::kHalf);
  for (std::int64_t r = 0, slot = 0; r < world; ++r) {
    if (r == rank) continue;
    fillSlot(send.narrow(0, chunk * slot++, chunk), chunkOf(words, r, chunk));
  }
  // Two vectors: Gloo's work moves from the ones it is given.
  std::vector<std::int64_t> send_splits(world, chunk);
  send_splits[rank] = 0;
  std::vector<std::int64_t> receive_splits = send_splits;
  at::Tensor received =
      staging(StagingSlot::kReceived, send.numel(), at::kHalf);
  pg->alltoall_base(received, send, receive_splits, send_splits)->wait();

  // This rank's chunk of the sum, in float32 and in rank order.
  const at::Tensor own = chunkOf(words, rank, chunk);
  at::Tensor sum = staging(StagingSlot::kSum, chunk, at::kFloat);
  for (std::int64_t r = 0; r < world; ++r) {
    const at::Tensor part =
        r == rank ? own
                  : received.narrow(0, chunk * (r < rank ? r : r - 1), chunk);
    if (r == 0) {
      sum.narrow(0, part.numel(), chunk - part.numel()).zero_();
      decodeWords(part, sum.narrow(0, 0, part.numel()), format.decode);
    } else {
      decodeWords(part, sum.narrow(0, 0, part.numel()), format.accumulate);
    }
  }
  // The allgather may still read the rounded sum after this returns, and
  // it writes straight into `output` when the chunks tile it: then the sum
  // goes where the allgather puts this rank's own chunk.
  const bool tiles = output.is_contiguous() && n == world * chunk;
  std::vector<std::vector<at::Tensor>> gathered(1);
  for (std::int64_t r = 0; r < world; ++r) {
    gathered[0].push_back(
        tiles ? output.view(-1).view(at::kHalf).narrow(0, r * chunk, chunk)
              : at::empty({chunk}, words.options()));
  }
  std::vector<at::Tensor> reduced{gathered[0][rank]};
  encodeInto(sum, reduced[0], format.encode);
  auto work = pg->allgather(gathered, reduced);
  return work->getFuture()->then(
      [output, gathered = gathered[0], tiles, n](c10::ivalue::Future& done) {
        // Future::then runs this on failure too; the error must carry on.
        if (done.hasError()) std::rethrow_exception(done.exception_ptr());
        if (!tiles) {
          output.copy_(at::cat(gathered)
                           .narrow(0, 0, n)
                           .view(output.scalar_type())
                           .view(output.sizes()));
        }
        return c10::IValue(output);
      },
      c10::TensorType::get());
}

}  // namespace distalgo::hooks::internal
