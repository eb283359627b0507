#pragma once

// A subgroup that is created on first use, so that what holds it (the
// post-local SGD hook's state) can be built before any process group exists.

#include <optional>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "distalgo/groups/subgroups.h"

namespace distalgo::groups {

// Gives this rank's subgroup of consecutive ranks, created by newSubgroups on
// the first get(). Without a group size, the group is the node: the size is
// LOCAL_WORLD_SIZE (set by torchrun and similar launchers) when set, else the
// whole process group (one node).
//
// Example:
//   SubgroupProvider intra_node;            // before any process group
//   ...
//   auto subgroup = intra_node.get(store, pg);  // collective the first time
class SubgroupProvider {
 public:
  explicit SubgroupProvider(std::optional<int> group_size = std::nullopt,
                            GroupOptions options = {});
  // A provider of an existing subgroup; get() returns it as is.
  static SubgroupProvider of(c10::intrusive_ptr<c10d::ProcessGroup> subgroup);

  // This rank's subgroup of `pg`. The first call is collective over `pg`
  // (every rank of `pg` calls it); later calls return the same group. Throws
  // std::invalid_argument as newSubgroups, or for an unusable
  // LOCAL_WORLD_SIZE. Not synchronised: call it from one thread at a time
  // (DDP runs its hooks on the autograd engine's thread).
  c10::intrusive_ptr<c10d::ProcessGroup> get(
      const c10::intrusive_ptr<c10d::Store>& store,
      const c10::intrusive_ptr<c10d::ProcessGroup>& pg);

  bool created() const;

 private:
  std::optional<int> group_size_;
  GroupOptions options_;
  c10::intrusive_ptr<c10d::ProcessGroup> subgroup_;
};

}  // namespace distalgo::groups
