#include "hooks/internal/sum_by_chunks.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <vector>

#include "hooks/internal/exchange.h"
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

// Point-to-point tags of the two phases (hooks/internal/exchange.h).
constexpr int kScatterTag = 0x5C;
constexpr int kGatherTag = 0x5D;

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
  if (!input.is_cpu() || !output.is_cpu()) {
    // The chunks are summed on the host, and Gloo moves host memory only:
    // a CUDA bucket goes through a host copy, summed the same way.
    const at::Tensor host = input.cpu();
    sumByChunks(pg, host, host, format);
    output.copy_(host);
    return completedFuture(output);
  }
  const std::int64_t chunk = (n + world - 1) / world;
  // Gloo moves 16-bit words as float16, whatever they hold.
  const at::Tensor words = input.reshape(-1).contiguous().view(at::kHalf);
  const std::int64_t mine = chunkOf(words, rank, chunk).numel();

  // Reduce-scatter: chunk r of the words to rank r, every other rank's copy
  // of this rank's chunk here (staged: done with before this returns).
  std::vector<at::Tensor> to(world), from(world);
  at::Tensor received =
      staging(StagingSlot::kReceived, (world - 1) * mine, at::kHalf);
  for (std::int64_t r = 0, slot = 0; r < world; ++r) {
    if (r == rank) continue;
    to[r] = chunkOf(words, r, chunk);
    from[r] = received.narrow(0, mine * slot++, mine);
  }
  exchange(*pg, to, from, kScatterTag);

  // This rank's chunk of the sum, in float32 and in rank order.
  at::Tensor sum = staging(StagingSlot::kSum, mine, at::kFloat);
  for (std::int64_t r = 0; r < world; ++r) {
    const at::Tensor part = r == rank ? chunkOf(words, rank, chunk) : from[r];
    decodeWords(part, sum, r == 0 ? format.decode : format.accumulate);
  }

  // Allgather: the rounded sum into its place in the output, every other
  // rank's chunk into theirs.
  const bool in_place = output.is_contiguous();
  const at::Tensor gathered = in_place ? output.view(-1).view(at::kHalf)
                                       : at::empty({n}, words.options());
  const at::Tensor own = chunkOf(gathered, rank, chunk);
  encodeInto(sum, own, format.encode);
  for (std::int64_t r = 0; r < world; ++r) {
    if (r == rank) continue;
    to[r] = own;
    from[r] = chunkOf(gathered, r, chunk);
  }
  exchange(*pg, to, from, kGatherTag);
  if (!in_place) {
    output.copy_(gathered.view(output.scalar_type()).view(output.sizes()));
  }
  return completedFuture(output);
}

}  // namespace distalgo::hooks::internal
