#include "distalgo/averaging/hierarchical_model_averager.h"

#include <utility>

#include "internal/check.h"

namespace distalgo::averaging {
namespace {

constexpr const char* kHierarchicalAverager =
    "distalgo::averaging::HierarchicalModelAverager: ";

void checkHierarchy(const std::map<int, int>& period_group_sizes,
                    int world_size, std::int64_t warmup_steps) {
  DISTALGO_CHECK_ARG(!period_group_sizes.empty(), kHierarchicalAverager,
                     "expected at least one period and group size, got none");
  // The map is ordered: the first period is the smallest.
  const int shortest = period_group_sizes.begin()->first;
  DISTALGO_CHECK_ARG(shortest >= 1, kHierarchicalAverager,
                     "expected periods >= 1, got ", shortest);
  const int last = period_group_sizes.rbegin()->second;
  DISTALGO_CHECK_ARG(last == world_size, kHierarchicalAverager,
                     "expected the group size of the longest period to be the "
                     "process group's size ",
                     world_size, ", got ", last);
  DISTALGO_CHECK_ARG(warmup_steps >= 0, kHierarchicalAverager,
                     "expected warmup_steps >= 0, got ", warmup_steps);
  // Every size before any subgroup is made: making one is a collective.
  for (const auto& [period, size] : period_group_sizes) {
    DISTALGO_CHECK_ARG(
        size >= 1 && size <= world_size && world_size % size == 0,
        kHierarchicalAverager,
        "expected group sizes that divide the process group's "
        "size ",
        world_size, ", got ", size, " for period ", period);
  }
}

}  // namespace

HierarchicalModelAverager::HierarchicalModelAverager(
    const c10::intrusive_ptr<c10d::Store>& store,
    c10::intrusive_ptr<c10d::ProcessGroup> pg,
    const std::map<int, int>& period_group_sizes, std::int64_t warmup_steps,
    const groups::GroupOptions& options)
    : ModelAverager(std::move(pg)), warmup_steps_(warmup_steps) {
  const int world_size = processGroup()->getSize();
  checkHierarchy(period_group_sizes, world_size, warmup_steps);
  // One subgroup per distinct size, shared by the periods that use it.
  std::map<int, c10::intrusive_ptr<c10d::ProcessGroup>> by_size{
      {world_size, processGroup()}};
  for (const auto& [period, size] : period_group_sizes) {
    auto [it, inserted] = by_size.try_emplace(size);
    if (inserted) {
      it->second = groups::newSubgroups(store, processGroup(), size, options);
    }
    period_groups_.emplace(period, it->second);
  }
}

c10::intrusive_ptr<c10d::ProcessGroup> HierarchicalModelAverager::groupAt(
    std::int64_t step) const {
  if (step < warmup_steps_) return {};
  for (auto it = period_groups_.rbegin(); it != period_groups_.rend(); ++it) {
    if (step % it->first == 0) return it->second;
  }
  return {};
}

}  // namespace distalgo::averaging
