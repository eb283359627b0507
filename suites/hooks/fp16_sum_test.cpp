// The fp16 compression hook's sum where the backend would sum float16 in
// float16 (Gloo): summed in float32 by chunks, rounded once, with float16's
// own overflow (infinity, as ATen casts), not the codecs' clamp.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "distalgo/hooks/bf16_allreduce.h"
#include "distalgo/hooks/fp16_compress.h"
#include "hand_bucket.h"
#include "ranktest/ranktest.h"

namespace {

class CommHookFp16 : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }

 protected:
  // Rank r's gradients: the same draws in every rank, scaled by r + 1.
  static at::Tensor gradients(int rank, std::int64_t n) {
    at::manual_seed(29);
    return at::randn({n}).mul_(rank + 1);
  }

  // The hook's result computed alone: each rank's float16 gradient divided
  // by W in float16, the terms summed in float32 in rank order, rounded to
  // float16 once.
  at::Tensor expectedMean(std::int64_t n) const {
    at::Tensor sum;
    for (int r = 0; r < worldSize(); ++r) {
      const at::Tensor term =
          gradients(r, n).to(at::kHalf).div(worldSize()).to(at::kFloat);
      sum = r == 0 ? term : sum + term;
    }
    return sum.to(at::kHalf).to(at::kFloat);
  }

  void skipUnlessChunkedSum() {
    if (distalgo::hooks::canSumBf16(*pg())) {
      GTEST_SKIP() << backend() << " sums float16 itself; these tests are of "
                   << "the chunked sum";
    }
  }
};

// Lengths below W, divisible by W and not, and long enough for the
// vectorised kernels with a tail.
RANKTEST_F(CommHookFp16, GlooSumIsTheFloat32SumRoundedOnce) {
  skipUnlessChunkedSum();
  for (const std::int64_t n : {1, 7, 12, 13, 4099}) {
    const at::Tensor result = hookparity::runOnBuffer(
        distalgo::hooks::fp16CompressHook(pg()), gradients(rank(), n));
    const at::Tensor expected = expectedMean(n);
    EXPECT_TRUE(at::equal(result, expected))
        << "n = " << n << ", largest difference "
        << (result - expected).abs().max().item<float>();
  }
}

// HalfSum::kBackend is PyTorch's fp16_compress_hook: the backend's own
// float16 allreduce of the divided bucket, bit for bit. At 3 or more ranks
// on Gloo, whose every partial sum rounds to float16, some sums differ from
// the default's float32 sum rounded once.
RANKTEST_F(CommHookFp16, BackendSumIsPyTorchsBitForBit) {
  using distalgo::hooks::HalfSum;
  constexpr std::int64_t n = 4099;
  std::vector<at::Tensor> pytorch{
      gradients(rank(), n).to(at::kHalf).div_(worldSize())};
  pg()->allreduce(pytorch)->wait();
  const at::Tensor backend = hookparity::runOnBuffer(
      distalgo::hooks::fp16CompressHook(pg(), HalfSum::kBackend),
      gradients(rank(), n));
  EXPECT_TRUE(at::equal(backend, pytorch[0].to(at::kFloat)));
  if (worldSize() >= 3 && !distalgo::hooks::canSumBf16(*pg())) {
    const at::Tensor once = hookparity::runOnBuffer(
        distalgo::hooks::fp16CompressHook(pg()), gradients(rank(), n));
    EXPECT_FALSE(at::equal(backend, once))
        << "Gloo's float16 sum rounded no partial sum differently";
  }
}

// A gradient beyond float16's range casts to infinity, and the mean stays
// infinite (a loss scaler must see it); NaN stays NaN.
RANKTEST_F(CommHookFp16, OverflowStaysInfinite) {
  skipUnlessChunkedSum();
  at::Tensor buffer = at::ones({40});
  if (rank() == 0) {
    buffer[3] = 1e6;
    buffer[7] = -1e6;
    buffer[11] = std::numeric_limits<float>::quiet_NaN();
  }
  const at::Tensor result =
      hookparity::runOnBuffer(distalgo::hooks::fp16CompressHook(pg()), buffer);
  EXPECT_EQ(result[3].item<float>(), std::numeric_limits<float>::infinity());
  EXPECT_EQ(result[7].item<float>(), -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(result[11].item<float>()));
  EXPECT_FLOAT_EQ(result[0].item<float>(), 1.0f);
}

}  // namespace
