// What the parent knows about the backends before any rank starts: NCCL's
// version as torch reports it, and whether the nccl.h built against is it.

#include "ranktest/backends.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace harness_suite {
namespace {

std::uint64_t packed(std::uint64_t major, std::uint64_t minor,
                     std::uint64_t patch) {
  return (major << 32) + (minor << 16) + patch;
}

// torch::cuda::nccl::version() packs the three parts; a plain cast read
// 2.28.9 as 1835017.
TEST(HarnessBackends, NcclVersionIsDecodedFromTorchsPackedValue) {
  EXPECT_EQ(ranktest::decodeNcclVersion(packed(2, 28, 9)), 22809);
  EXPECT_EQ(ranktest::decodeNcclVersion(packed(2, 14, 5)), 21405);
  EXPECT_EQ(ranktest::decodeNcclVersion(packed(2, 30, 17)), 23017);
}

TEST(HarnessBackends, BuiltNcclIsLibtorchsAndItsHeaderMatches) {
  if (!ranktest::ncclBuilt()) {
    EXPECT_EQ(ranktest::ncclVersion(), std::nullopt);
    EXPECT_NO_THROW(ranktest::checkNcclHeaderMatchesTorch());
    return;
  }
  ASSERT_TRUE(ranktest::ncclVersion().has_value());
  EXPECT_GE(*ranktest::ncclVersion(), 20000);
  EXPECT_LT(*ranktest::ncclVersion(), 30000);
  EXPECT_NO_THROW(ranktest::checkNcclHeaderMatchesTorch());
}

}  // namespace
}  // namespace harness_suite
