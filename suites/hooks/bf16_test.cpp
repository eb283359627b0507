// The bfloat16 hooks: their rows in the parity table, and the Gloo sum
// (point-to-point reduce-scatter + allgather) on data whose exact mean is
// known.

#include <ATen/ATen.h>
#include <c10/util/BFloat16.h>
#include <gmock/gmock.h>

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "distalgo/hooks/bf16_allreduce.h"
#include "distalgo/hooks/bf16_compress.h"
#include "distalgo/hooks/default_hooks.h"
#include "fixtures/chunked_sum_bytes.h"
#include "hand_bucket.h"
#include "hookparity/hook_parity.h"
#include "torch_compat/version.h"

namespace {

using hookparity::Bytes;
using hookparity::numelOf;
using hookparity::TrafficContext;

// What one bucket of n elements costs per collective: NCCL sums bfloat16
// itself (2 bytes an element); on Gloo, the chunked sum's point-to-point
// sends (see bf16_allreduce.h).
Bytes bf16Traffic(const TrafficContext& c) {
  const std::int64_t n = numelOf(c.parameters);
  const std::int64_t steps = c.steps;
  if (c.backend == "nccl") return {{"allreduce", steps * 2 * n}};
  return {{"send",
           c.steps * fixtures::chunkedSumSendBytes(n, c.world_size, c.rank)}};
}

// bfloat16 keeps 8 significant bits, so each gradient rounds by up to 2^-9
// (2e-3) relative. Measured over the 3 steps, worst parameter difference from
// reference DDP: 1.03e-4 at world size 2 (9e-5 at 3 and 4, Gloo); this leaves
// about 5x headroom.
constexpr double kBf16Atol = 5e-4;

const std::vector<hookparity::HookCase> kBf16Hooks = {
    {.name = "bf16_compress",
     .make =
         [](const auto& pg) { return distalgo::hooks::bf16CompressHook(pg); },
     .parity = hookparity::within(kBf16Atol),
     .traffic = bf16Traffic},
    {.name = "bf16_wrapper_of_allreduce",
     .make =
         [](const auto& pg) {
           return distalgo::hooks::bf16CompressWrapper(
               distalgo::hooks::allreduceHook(pg));
         },
     .parity = hookparity::within(kBf16Atol),
     .traffic = bf16Traffic},
};
RANKTEST_INSTANTIATE_P(CommHookParity, kBf16Hooks);
RANKTEST_INSTANTIATE_P(CommHookCuda, kBf16Hooks);

class CommHookBf16 : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }

 protected:
  // Rank r's gradients: integers in -128..128, exact in bfloat16, so that
  // the expected mean can be computed exactly.
  static std::vector<float> values(int rank, std::int64_t n) {
    std::vector<float> v;
    for (std::int64_t i = 0; i < n; ++i) {
      v.push_back(
          static_cast<float>((i * 37 + std::int64_t{rank} * 101) % 257 - 128));
    }
    return v;
  }
  static at::Tensor gradients(int rank, std::int64_t n) {
    return at::tensor(values(rank, n));
  }

  // bf16CompressHook's result computed alone: each rank's bfloat16 gradient
  // divided by W and rounded to bfloat16, summed exactly (these few
  // bfloat16 terms fit float32's 24 bits), rounded to bfloat16 once.
  at::Tensor expectedMean(std::int64_t n) const {
    std::vector<double> sum(n, 0.0);
    for (int r = 0; r < worldSize(); ++r) {
      const std::vector<float> x = values(r, n);
      for (std::int64_t i = 0; i < n; ++i) {
        sum[i] += static_cast<float>(c10::BFloat16(x[i] / worldSize()));
      }
    }
    std::vector<float> expected;
    for (double s : sum) {
      expected.push_back(
          static_cast<float>(c10::BFloat16(static_cast<float>(s))));
    }
    return at::tensor(expected);
  }

  void skipUnlessChunkedSum() {
    if (distalgo::hooks::canSumBf16(*pg())) {
      GTEST_SKIP() << backend() << " sums bfloat16 itself, with its own "
                   << "rounding; these tests are of the chunked sum";
    }
  }
};

// Lengths below W, divisible by W and not (padding), and long enough for
// the vectorised kernels with a tail, on Gloo's chunked sum.
RANKTEST_F(CommHookBf16, GlooSumEqualsExactMeanRoundedToBf16) {
  skipUnlessChunkedSum();
  for (const std::int64_t n : {1, 7, 12, 13, 212, 4099}) {
    const auto hook = distalgo::hooks::bf16CompressHook(pg());
    const at::Tensor buffer = gradients(rank(), n);
    const at::Tensor result = hookparity::runOnBuffer(hook, buffer);
    const at::Tensor expected = expectedMean(n);
    EXPECT_TRUE(at::equal(result, expected))
        << "n = " << n << ", largest difference "
        << (result - expected).abs().max().item<float>();
    // In place, as PyTorch's hook: the bucket holds the result.
    EXPECT_TRUE(at::equal(buffer, expected)) << "n = " << n;
  }
}

RANKTEST_F(CommHookBf16, WrapperOfAllreduceEqualsTheHookExactly) {
  const auto wrapped = distalgo::hooks::bf16CompressWrapper(
      distalgo::hooks::allreduceHook(pg()));
  const auto hook = distalgo::hooks::bf16CompressHook(pg());
  const at::Tensor data =
      at::randn({50}, at::TensorOptions().device(device())).mul_(rank() + 1);
  const at::Tensor a = hookparity::runOnBuffer(wrapped, data.clone());
  const at::Tensor b = hookparity::runOnBuffer(hook, data.clone());
  EXPECT_EQ(a.scalar_type(), at::kFloat);
  EXPECT_TRUE(at::equal(a, b));
}

// The chunked sum sends each other rank its chunk of ceil(n / W) bfloat16
// words, then its own chunk of the sum, as point-to-point messages (one
// message per peer and phase; an empty chunk sends none).
RANKTEST_F(CommHookBf16, GlooSumSendsOneAllreducesWorthOfBf16) {
  skipUnlessChunkedSum();
  auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
  const std::int64_t n = 13;
  at::Tensor t = gradients(rank(), n).to(at::kBFloat16);
  distalgo::hooks::allreduceBf16(counting, t)->wait();
  EXPECT_EQ(counting->traffic("send").bytes,
            fixtures::chunkedSumSendBytes(n, worldSize(), rank()));
  EXPECT_EQ(counting->traffic("send").calls, 2 * (worldSize() - 1));
  EXPECT_EQ(counting->traffic("alltoall_base").calls, 0);
  EXPECT_EQ(counting->traffic("allgather").calls, 0);
  EXPECT_EQ(counting->traffic("allreduce").calls, 0);
  at::Tensor sum = at::zeros({n});
  for (int r = 0; r < worldSize(); ++r) sum += gradients(r, n);
  EXPECT_TRUE(
      at::equal(t.to(at::kFloat), sum.to(at::kBFloat16).to(at::kFloat)));
}

RANKTEST_F(CommHookBf16, AllreduceBf16RefusesOtherDtypes) {
  at::Tensor t = at::ones({4});
  try {
    distalgo::hooks::allreduceBf16(pg(), t);
    ADD_FAILURE() << "a float32 tensor was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), testing::HasSubstr("expected a bfloat16 tensor, "
                                                 "got Float"));
  }
}

// A hook that hands the bfloat16 buffer to Gloo's allreduce itself: Gloo of
// libtorch 2.x sums it (each partial sum rounded to bfloat16, as PyTorch's
// bf16 hook on Gloo does); 1.13's refuses, and the error names the way out
// instead of Gloo's "Invalid scalar type" alone.
RANKTEST_F(CommHookBf16, WrappedRawAllreduceOnGlooSumsOrFailsClearly) {
  skipUnlessChunkedSum();
  auto group = pg();
  const auto wrapped = distalgo::hooks::bf16CompressWrapper(
      [group](distalgo::ddp::GradBucket& bucket) {
        std::vector<at::Tensor> tensors{bucket.buffer()};
        return group->allreduce(tensors)->getFuture();
      });
  if constexpr (torch_compat::kTorchMajor >= 2) {
    const at::Tensor sum = hookparity::runOnBuffer(wrapped, at::ones({8}));
    EXPECT_TRUE(at::equal(sum, at::full({8}, worldSize(), at::kFloat)));
    return;
  }
  try {
    hookparity::runOnBuffer(wrapped, at::ones({8}));
    ADD_FAILURE() << "Gloo summed bfloat16";
  } catch (const std::invalid_argument& error) {
    EXPECT_THAT(error.what(), testing::HasSubstr("cannot move bfloat16"));
    EXPECT_THAT(error.what(), testing::HasSubstr("allreduceBf16"));
  }
}

}  // namespace
