#pragma once

// PyTorch's HierarchicalModelAverager: frequent averaging in small groups of
// consecutive ranks (e.g. within a node), rarer averaging in larger ones.

#include <cstdint>
#include <map>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "distalgo/averaging/model_averager.h"
#include "distalgo/groups/subgroups.h"

namespace distalgo::averaging {

// `period_group_sizes` maps a period to the size of the groups that average
// at that period. At each step from `warmup_steps` on, the longest period that
// divides the step (the absolute step, not counted from warm-up, as PyTorch
// does) picks the group; no period dividing it, no averaging.
//
// The subgroups are built once, at construction (groups::newSubgroups over
// `pg`, so construction is collective over `pg`); the size of the longest
// period must be pg's size, whose group is `pg` itself. A longest period of 1
// is pointless (PyTorch warns): use DDP alone.
//
// Example: {{2, 2}, {4, 4}} on 4 ranks averages ranks {0, 1} and {2, 3} at
// steps 2, 6, 10, ... and all four at steps 0, 4, 8, ...
class HierarchicalModelAverager : public ModelAverager {
 public:
  // Throws std::invalid_argument if the map is empty, a period is < 1, the
  // last group size is not pg's size, warmup_steps < 0, or a group size does
  // not divide pg's size.
  HierarchicalModelAverager(const c10::intrusive_ptr<c10d::Store>& store,
                            c10::intrusive_ptr<c10d::ProcessGroup> pg,
                            const std::map<int, int>& period_group_sizes,
                            std::int64_t warmup_steps = 0,
                            const groups::GroupOptions& options = {});

  std::int64_t warmupSteps() const { return warmup_steps_; }

 protected:
  c10::intrusive_ptr<c10d::ProcessGroup> groupAt(
      std::int64_t step) const override;

 private:
  // Period -> this rank's group at that period, periods ascending.
  std::map<int, c10::intrusive_ptr<c10d::ProcessGroup>> period_groups_;
  std::int64_t warmup_steps_;
};

}  // namespace distalgo::averaging
