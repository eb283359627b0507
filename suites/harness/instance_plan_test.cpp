// Which instances a test registers and which a forced WORLD_SIZE or BACKEND
// runs: the names never depend on the run; the choice skips, with a reason.

#include "plan/instance_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

namespace {

using ranktest::TestOptions;
using ranktest::internal::CellChoice;
using ranktest::internal::planInstances;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// suffix -> "" when it runs, else "<code>: <reason>".
std::map<std::string, std::string> plan(const TestOptions& options,
                                        const CellChoice& cell) {
  std::map<std::string, std::string> out;
  for (const auto& p : planInstances(options, cell)) {
    out[p.suffix()] =
        p.deselected ? std::to_string(static_cast<int>(p.deselected->code)) +
                           ": " + p.deselected->message
                     : "";
  }
  return out;
}

std::vector<std::string> names(const TestOptions& options,
                               const CellChoice& cell) {
  std::vector<std::string> out;
  for (const auto& p : planInstances(options, cell)) out.push_back(p.suffix());
  return out;
}

CellChoice glooOnly() { return {.built = {"gloo"}}; }

TEST(HarnessInstancePlan, WithoutAForcedCellEveryDeclaredSizeRuns) {
  const auto p = plan({.world_sizes = {2, 4}}, glooOnly());
  EXPECT_EQ(p, (std::map<std::string, std::string>{{"gloo_ws2", ""},
                                                   {"gloo_ws4", ""}}));
}

TEST(HarnessInstancePlan, ForcedDeclaredSizeRunsThatInstanceOnly) {
  CellChoice cell = glooOnly();
  cell.world_size = 4;
  const auto p = plan({.world_sizes = {2, 4}}, cell);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.at("gloo_ws4"), "");
  EXPECT_EQ(p.at("gloo_ws2"),
            "86: WORLD_SIZE=4 runs this test as its gloo_ws4 instance only");
}

TEST(HarnessInstancePlan, ForcedUndeclaredSizeSkipsNamingTheDeclaredSizes) {
  CellChoice cell = glooOnly();
  cell.world_size = 3;
  const auto p = plan({.world_sizes = {2, 4}}, cell);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p.at("gloo_ws3"),
            "86: the test is declared at world sizes 2, 4 (where its "
            "assertions hold), not at WORLD_SIZE=3");
  EXPECT_THAT(p.at("gloo_ws2"), HasSubstr("declared at world sizes 2, 4"));
  EXPECT_THAT(p.at("gloo_ws4"), HasSubstr("WORLD_SIZE=3 runs only"));
}

TEST(HarnessInstancePlan, ForcedSizeBelowEveryDeclaredOneIsASmallWorldSize) {
  CellChoice cell = glooOnly();
  cell.world_size = 1;
  EXPECT_THAT(plan({.world_sizes = {2}}, cell).at("gloo_ws1"),
              HasSubstr("73: the test is declared at world size 2"));
}

TEST(HarnessInstancePlan, AnySizeTestRunsAtTheForcedSize) {
  CellChoice cell = glooOnly();
  cell.world_size = 5;
  TestOptions options{.world_sizes = {2, 3}, .any_world_size_from = 2};
  const auto p = plan(options, cell);
  EXPECT_EQ(p.at("gloo_ws5"), "");
  EXPECT_THAT(p.at("gloo_ws2"),
              HasSubstr("runs this test as its gloo_ws5 instance only"));
  cell.world_size = 1;
  EXPECT_THAT(plan(options, cell).at("gloo_ws1"),
              HasSubstr("73: the test is declared at world sizes 2, 3 or any "
                        ">= 2"));
}

TEST(HarnessInstancePlan, NamesOfTheDeclaredCellComeFirstAndNeverRepeat) {
  CellChoice cell = glooOnly();
  cell.world_size = 3;
  EXPECT_THAT(names({.world_sizes = {4, 2}}, cell),
              ElementsAre("gloo_ws4", "gloo_ws2", "gloo_ws3"));
  cell.world_size = 2;
  EXPECT_THAT(names({.world_sizes = {4, 2}}, cell),
              ElementsAre("gloo_ws4", "gloo_ws2"));
}

TEST(HarnessInstancePlan, ListingShowsOnlyTheDeclaredNames) {
  CellChoice cell = glooOnly();
  cell.world_size = 3;
  cell.backend = "nccl";
  cell.declared_only = true;
  EXPECT_THAT(names({.world_sizes = {2, 4}}, cell),
              ElementsAre("gloo_ws2", "gloo_ws4"));
}

TEST(HarnessInstancePlan, NcclWithoutNcclSkipsTheGlooInstancesWithItsCode) {
  CellChoice cell = glooOnly();
  cell.backend = "nccl";
  const auto p = plan({.world_sizes = {2}}, cell);
  EXPECT_EQ(p.at("gloo_ws2"),
            "76: BACKEND=nccl runs only nccl instances, and c10d was not "
            "compiled with NCCL support");
  // The cell's own instance runs; its parent then skips it (no NCCL).
  EXPECT_EQ(p.at("nccl_ws2"), "");
}

TEST(HarnessInstancePlan, BuildWithNcclNamesBothBackendsAndRunsTheChosenOne) {
  CellChoice cell{.built = {"gloo", "nccl"}};
  EXPECT_THAT(plan({.world_sizes = {2}}, cell).at("nccl_ws2"),
              HasSubstr("86: BACKEND=gloo runs only gloo instances"));
  cell.backend = "nccl";
  const auto p = plan({.world_sizes = {2}}, cell);
  EXPECT_EQ(p.at("nccl_ws2"), "");
  EXPECT_EQ(p.at("gloo_ws2"), "86: BACKEND=nccl runs only nccl instances");
}

TEST(HarnessInstancePlan, DeclaringNoOrANonPositiveSizeIsAnError) {
  EXPECT_THROW(planInstances({.world_sizes = {}}, glooOnly()),
               std::invalid_argument);
  EXPECT_THROW(planInstances({.world_sizes = {2, 0}}, glooOnly()),
               std::invalid_argument);
}

}  // namespace
