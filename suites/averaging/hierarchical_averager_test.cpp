// HierarchicalModelAverager on 4 ranks: each step equals the average that an
// explicit sequence of newGroup groups gives (pairs {0, 1} and {2, 3}, or all
// four), its subgroups are built once, and bad hierarchies are refused.

#include <ATen/ATen.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "averaging_util.h"
#include "distalgo/averaging/average_parameters.h"
#include "distalgo/averaging/hierarchical_model_averager.h"
#include "distalgo/groups/subgroups.h"
#include "fixtures/compare.h"
#include "ranktest/ranktest.h"

namespace averaging_suite {
namespace {

using distalgo::averaging::HierarchicalModelAverager;
using Hierarchy = std::map<int, int>;

constexpr int kSteps = 24;

struct HierarchyCase {
  Hierarchy period_group_sizes;
  int warmup;
};

// The group size that averages at `step`, 0 for none: the longest period
// dividing the absolute step, once warm-up is over.
int sizeAt(const HierarchyCase& c, int step) {
  if (step < c.warmup) return 0;
  for (auto it = c.period_group_sizes.rbegin();
       it != c.period_group_sizes.rend(); ++it) {
    if (step % it->first == 0) return it->second;
  }
  return 0;
}

// Every rank's first parameter element, so a test can see who was averaged.
std::vector<float> firstElements(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, const at::Tensor& p) {
  std::vector<at::Tensor> input{p.detach().reshape(-1).slice(0, 0, 1).clone()};
  std::vector<std::vector<at::Tensor>> output(1);
  for (int r = 0; r < pg->getSize(); ++r) output[0].push_back(at::empty({1}));
  pg->allgather(output, input)->wait();
  std::vector<float> values;
  for (const auto& t : output[0]) values.push_back(t.item<float>());
  return values;
}

class AveragingHierarchical : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {4}}; }
};

RANKTEST_F(AveragingHierarchical, EqualsTheSequenceOfGroupAverages) {
  // Every rank joins both calls; each keeps the pair it belongs to.
  const auto low = distalgo::groups::newGroup(store(), pg(), {0, 1});
  const auto high = distalgo::groups::newGroup(store(), pg(), {2, 3});
  const auto pair = rank() < 2 ? low : high;
  const std::vector<HierarchyCase> cases{
      {{{2, 2}, {4, 4}}, 0},
      // PyTorch's 3-level test, with its largest size the world.
      {{{2, 2}, {4, 4}, {8, 4}}, 10},
      {{{3, 2}, {6, 4}}, 1}};
  for (const auto& c : cases) {
    HierarchicalModelAverager averager(store(), pg(), c.period_group_sizes,
                                       c.warmup);
    auto actual = rankParameters(rank());
    auto expected = rankParameters(rank());
    for (int step = 0; step < kSteps; ++step) {
      SCOPED_TRACE("warm-up " + std::to_string(c.warmup) + ", step " +
                   std::to_string(step));
      // A local update that differs per rank, as local SGD's.
      for (auto& p : actual) p.detach().add_(rank() + 1);
      for (auto& p : expected) p.detach().add_(rank() + 1);
      averager.averageParameters(actual);
      const int size = sizeAt(c, step);
      if (size != 0) {
        distalgo::averaging::averageParameters(expected,
                                               size == 2 ? pair : pg());
      }
      fixtures::expectSameTensors(actual, expected, fixtures::kExact);
      // Not vacuous: pairs agree after a pair average, all after a global
      // one, none otherwise.
      const auto v = firstElements(pg(), actual[0]);
      EXPECT_EQ(v[0] == v[1], size != 0);
      EXPECT_EQ(v[2] == v[3], size != 0);
      EXPECT_EQ(v[0] == v[2], size == 4);
    }
  }
}

RANKTEST_F(AveragingHierarchical, BuildsItsSubgroupsOnceAtConstruction) {
  auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
  HierarchicalModelAverager averager(store(), counting, {{2, 2}, {4, 4}});
  counting->reset();
  for (int step = 0; step < 8; ++step) {
    auto params = rankParameters(rank());
    averager.averageParameters(params);
  }
  // Creating a group broadcasts its id over the parent: none after
  // construction. The global averages (steps 0 and 4) use the parent
  // itself; the pair averages use the pair's own group.
  EXPECT_EQ(counting->traffic("broadcast").calls, 0);
  EXPECT_EQ(counting->traffic("allreduce").calls, 2);
}

RANKTEST_F(AveragingHierarchical, RejectsBadHierarchies) {
  auto make = [&](const Hierarchy& hierarchy, std::int64_t warmup = 0) {
    HierarchicalModelAverager(store(), pg(), hierarchy, warmup);
  };
  expectInvalidArgument([&] { make({}); },
                        "expected at least one period and group size, got "
                        "none");
  expectInvalidArgument(
      [&] {
        make({{0, 4}});
      },
      "expected periods >= 1, got 0");
  expectInvalidArgument(
      [&] {
        make({{-2, 2}, {4, 4}});
      },
      "expected periods >= 1, got -2");
  expectInvalidArgument(
      [&] {
        make({{2, 2}});
      },
      "expected the group size of the longest period to be "
      "the process group's size 4, got 2");
  expectInvalidArgument(
      [&] {
        make({{2, 2}, {4, 4}}, -1);
      },
      "expected warmup_steps >= 0, got -1");
  expectInvalidArgument(
      [&] {
        make({{2, 3}, {4, 4}});
      },
      "expected group sizes that divide the process group's size 4, got 3 "
      "for period 2");
  // Refused before the valid size's subgroups are made (a collective).
  expectInvalidArgument(
      [&] {
        make({{2, 2}, {3, 3}, {6, 4}});
      },
      "expected group sizes that divide the process group's size 4, got 3 "
      "for period 3");
  // A longest period of 1 is allowed (PyTorch only warns).
  make({{1, 4}});
}

}  // namespace
}  // namespace averaging_suite
