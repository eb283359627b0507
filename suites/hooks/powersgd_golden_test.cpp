// The layer-wise hook against PyTorch's powerSGD_hook on a fixed bucket, the
// PyTorch of the libtorch built against (golden/powersgd_golden.py made
// golden/powersgd_golden_1_13.h with Debian's 1.13 and _2_11.h with the
// 2.11 wheel; they differ by up to 1e-6, the last bits of CPU float math).
// Every rank holds the bucket PyTorch compressed at world size 1: sums of
// identical tensors, divided by a power of two, reproduce that run.

#include <torch/version.h>

#if TORCH_VERSION_MAJOR >= 2
#include "golden/powersgd_golden_2_11.h"
#else
#include "golden/powersgd_golden_1_13.h"
#endif

#include <ATen/ATen.h>

#include <vector>

#include "distalgo/hooks/powersgd.h"
#include "ranktest/ranktest.h"
#include "synthetic_bucket.h"

namespace {

using distalgo::hooks::PowerSgdOptions;
using distalgo::hooks::PowerSgdState;

class CommHookPowerSgdGolden : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 4}}; }

 protected:
  // The script's buckets, step by step; the compressed steps' results.
  at::Tensor run(const PowerSgdOptions& options) {
    auto hook = distalgo::hooks::powerSgdHook(
        std::make_shared<PowerSgdState>(pg(), options));
    std::vector<at::Tensor> compressed;
    for (int step = 0; step < 2 + powersgd_golden::kSteps; ++step) {
      const at::Tensor x = at::arange(powersgd_golden::kLength, at::kFloat);
      hooktest::SyntheticBucket bucket(
          (x * 0.37 + step).sin() + (x * x * 0.013).sin() * 0.5,
          {{10, 8}, {10}, {10, 8}, {3, 4}});
      const auto future = hook(bucket.bucket());
      future->wait();
      if (step >= 2) {
        compressed.push_back(
            distalgo::ddp::firstTensorOf(future->value()).clone());
      }
    }
    return at::cat(compressed);
  }

  template <std::size_t N>
  static at::Tensor expected(const std::array<float, N>& values) {
    return at::tensor(std::vector<float>(values.begin(), values.end()));
  }
};

RANKTEST_F(CommHookPowerSgdGolden, Rank2MatchesPyTorch) {
  const at::Tensor actual = run({.matrix_approximation_rank = 2,
                                 .start_iteration = 2,
                                 .min_compression_rate = 1});
  const at::Tensor golden = expected(powersgd_golden::kRank2);
  EXPECT_TRUE(at::allclose(actual, golden, 1e-5, 1e-6))
      << "largest difference " << (actual - golden).abs().max().item<float>();
}

RANKTEST_F(CommHookPowerSgdGolden, Rank3BatchedQrMatchesPyTorch) {
  const at::Tensor actual = run({.matrix_approximation_rank = 3,
                                 .start_iteration = 2,
                                 .min_compression_rate = 1,
                                 .batch_tensors_with_same_shape = true});
  const at::Tensor golden = expected(powersgd_golden::kRank3Batched);
  EXPECT_TRUE(at::allclose(actual, golden, 1e-5, 1e-6))
      << "largest difference " << (actual - golden).abs().max().item<float>();
}

}  // namespace
