// The skip-code table matches PyTorch's TEST_SKIPS, so that tools written for
// its harness read ours alike.

#include "ranktest/skip_codes.h"

#include <gtest/gtest.h>

namespace {

using ranktest::SkipCode;

TEST(HarnessSkipCodes, GpuCountsMapToPyTorchCodes) {
  EXPECT_EQ(ranktest::skipCodeForGpus(1), SkipCode::kLessThan1Gpu);  // 75
  EXPECT_EQ(static_cast<int>(ranktest::skipCodeForGpus(2)), 77);
  for (int gpus = 3; gpus <= 8; ++gpus) {
    EXPECT_EQ(static_cast<int>(ranktest::skipCodeForGpus(gpus)), 77 + gpus);
  }
  EXPECT_EQ(static_cast<int>(ranktest::skipCodeForGpus(16)), 85);
}

TEST(HarnessSkipCodes, ExitCodesInTheTableAreSkipsAndOthersAreNot) {
  for (int code = 72; code <= 89; ++code) {
    ASSERT_TRUE(ranktest::skipCodeFromExitCode(code).has_value()) << code;
    EXPECT_FALSE(
        ranktest::describeSkipCode(*ranktest::skipCodeFromExitCode(code))
            .empty());
  }
  for (int code : {0, 1, 10, 71, 90, 127, 134}) {
    EXPECT_FALSE(ranktest::skipCodeFromExitCode(code).has_value()) << code;
  }
  EXPECT_EQ(ranktest::describeSkipCode(SkipCode::kLessThan4Gpus),
            "needs at least 4 GPUs");
  EXPECT_EQ(ranktest::describeSkipCode(SkipCode::kNcclMissing),
            "c10d not compiled with NCCL support");
}

}  // namespace
