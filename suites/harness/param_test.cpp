// Value-parameterised distributed tests: every body runs once per row, the row
// reaches every rank, and the row's traits apply to its tests only.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ranktest/ranktest.h"

namespace {

struct Scale {
  std::string name;
  int factor;
};

class HarnessParam : public ranktest::DistributedTestWithParam<Scale> {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
  static std::string paramName(const Scale& row, std::size_t) {
    return row.name;
  }
};

RANKTEST_P(HarnessParam, EveryRankSeesItsRow) {
  std::vector<at::Tensor> t{at::full({1}, param().factor * (rank() + 1))};
  pg()->allreduce(t)->wait();
  const int ranks_sum = worldSize() * (worldSize() + 1) / 2;
  EXPECT_EQ(t[0].item<int>(), param().factor * ranks_sum);
}

const std::vector<Scale> kScales = {{"double", 2}, {"triple", 3}};
RANKTEST_INSTANTIATE_P(HarnessParam, kScales);
// Rows with their own traits: only these run at world size 3.
const std::vector<Scale> kWide = {{"wide", 5}};
RANKTEST_INSTANTIATE_P(HarnessParam, kWide, ranktest::worldSizes({3}));

bool registered(const std::string& suite, const std::string& name) {
  const auto& unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const auto& s = *unit.GetTestSuite(i);
    if (s.name() != suite) continue;
    for (int j = 0; j < s.total_test_count(); ++j) {
      if (s.GetTestInfo(j)->name() == name) return true;
    }
  }
  return false;
}

TEST(HarnessParamRegistration, EveryRowGetsEveryBodyUnderItsName) {
  // WORLD_SIZE adds the cell's instances (e.g. wide/gloo_ws2 under 2).
  if (ranktest::settings().world_size) GTEST_SKIP() << "WORLD_SIZE is set";
  const std::string b = "gloo";  // declared names: gloo whatever BACKEND is
  EXPECT_TRUE(
      registered("HarnessParam", "EveryRankSeesItsRow/double/" + b + "_ws2"));
  EXPECT_TRUE(
      registered("HarnessParam", "EveryRankSeesItsRow/triple/" + b + "_ws2"));
  EXPECT_TRUE(
      registered("HarnessParam", "EveryRankSeesItsRow/wide/" + b + "_ws3"));
  EXPECT_FALSE(
      registered("HarnessParam", "EveryRankSeesItsRow/wide/" + b + "_ws2"));
}

}  // namespace
