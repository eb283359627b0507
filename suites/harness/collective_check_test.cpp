// The collective-mismatch check (ranktest::checkCollectives and
// RANKTEST_CHECK_COLLECTIVES): ranks that call different collectives fail at
// once, in every rank, with both ranks' collectives named; matching ones run
// as before on the checked group.

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroupWrapper.hpp>
#include <vector>

#include "inner_run.h"
#include "ranktest/ranktest.h"
#include "ranktest/settings.h"
#include "torch_compat/process_group.h"

namespace harness_suite {
namespace {

using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using namespace std::chrono_literals;

InnerResult runMismatch(const std::string& test,
                        std::map<std::string, std::string> env = {}) {
  InnerOptions options;
  options.filter = "InnerCollectiveCheck." + test + "/gloo_ws2";
  options.env = std::move(env);
  spawnUnderSanitizer(options);
  InnerResult result = runInner(options);
  EXPECT_THAT(result.processes_left, IsEmpty()) << result.output;
  EXPECT_THAT(result.files_left, IsEmpty()) << result.output;
  // The inner tests' deadline is 30 s: failing well before it means the
  // check, not the deadline, ended them.
  EXPECT_LT(result.elapsed, 20s * kSanitizerSlowdown) << result.output;
  EXPECT_THAT(result.output, Not(HasSubstr("timed out after")));
  return result;
}

TEST(HarnessCollectiveCheck, DifferentOpsFailEveryRankNamingBoth) {
  const InnerResult r = runMismatch("AllreduceAgainstBroadcast");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  // Each rank detects the mismatch; on a loaded machine one may be stopped
  // by the other's failure (fail-fast) before it reports its own.
  EXPECT_THAT(r.output, AnyOf(HasSubstr("rank 0 of 2 failed"),
                              HasSubstr("rank 0 was stopped because rank 1 "
                                        "failed")));
  EXPECT_THAT(r.output, AnyOf(HasSubstr("rank 1 of 2 failed"),
                              HasSubstr("rank 1 was stopped because rank 0 "
                                        "failed")));
  EXPECT_THAT(
      r.output,
      AllOf(HasSubstr("Detected mismatch between collectives"),
            HasSubstr("OpType=ALLREDUCE"), HasSubstr("OpType=BROADCAST")));
}

TEST(HarnessCollectiveCheck, TheEnvironmentTurnsItOn) {
  const InnerResult r = runMismatch("AllreduceAgainstBroadcastUnlessAsked",
                                    {{"RANKTEST_CHECK_COLLECTIVES", "1"}});
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, AllOf(HasSubstr("OpType=ALLREDUCE"),
                              HasSubstr("OpType=BROADCAST")));
}

TEST(HarnessCollectiveCheck, DifferentShapesAreNamed) {
  const InnerResult r = runMismatch("ShapesDiffer");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(
      r.output,
      AllOf(HasSubstr("Detected mismatch between collectives"),
            HasSubstr("TensorShape=[2]"), HasSubstr("TensorShape=[3]")));
}

TEST(HarnessCollectiveCheck, DifferentDtypesAreNamed) {
  const InnerResult r = runMismatch("DtypesDiffer");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output,
              AllOf(HasSubstr("Detected mismatch between collectives"),
                    HasSubstr("Float"), HasSubstr("Double")));
}

bool isChecked(const c10::intrusive_ptr<c10d::ProcessGroup>& pg) {
  return dynamic_cast<c10d::ProcessGroupWrapper*>(
             torch_compat::defaultBackend(pg).get()) != nullptr;
}

class HarnessCheckedGroup : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3}, .any_world_size_from = 2};
  }
};

// Matching collectives of every kind the library uses give their results as
// on an unchecked group.
RANKTEST_F(HarnessCheckedGroup, MatchingCollectivesRunAsBefore,
           ranktest::checkCollectives()) {
  ASSERT_TRUE(isChecked(pg()));
  EXPECT_EQ(pg()->getBackendName(), "gloo");
  std::vector<at::Tensor> summed{at::full({3}, rank() + 1.0)};
  pg()->allreduce(summed)->wait();
  EXPECT_TRUE(at::equal(summed[0],
                        at::full({3}, worldSize() * (worldSize() + 1) / 2.0)));

  std::vector<at::Tensor> copied{at::full({2, 2}, static_cast<double>(rank()))};
  pg()->broadcast(copied)->wait();
  EXPECT_TRUE(at::equal(copied[0], at::zeros({2, 2})));

  std::vector<at::Tensor> input{at::full({1}, static_cast<double>(rank()))};
  std::vector<std::vector<at::Tensor>> gathered(1);
  for (int r = 0; r < worldSize(); ++r) gathered[0].push_back(at::empty({1}));
  pg()->allgather(gathered, input)->wait();
  for (int r = 0; r < worldSize(); ++r) {
    EXPECT_EQ(gathered[0][r].item<float>(), r);
  }
  pg()->barrier()->wait();
}

RANKTEST_F(HarnessCheckedGroup, UncheckedUnlessAsked) {
  if (ranktest::settings().check_collectives.value_or(false)) {
    GTEST_SKIP() << "RANKTEST_CHECK_COLLECTIVES=1 asks for the check";
  }
  EXPECT_FALSE(isChecked(pg()));
}

TEST(HarnessCollectiveCheck, RunRanksChecksWhenAsked) {
  ranktest::RunOptions options;
  options.check_collectives = true;
  const ranktest::RunResult result =
      ranktest::runRanks(options, [](const ranktest::Rank& rank) {
        if (!isChecked(rank.pg)) throw std::runtime_error("group not checked");
        std::vector<at::Tensor> tensors{at::ones({2})};
        rank.pg->allreduce(tensors)->wait();
      });
  EXPECT_EQ(result.outcome, ranktest::RunResult::Outcome::kPassed)
      << result.message;
}

}  // namespace
}  // namespace harness_suite
