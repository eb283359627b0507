#include "distalgo/groups/subgroup_provider.h"

#include <cstdlib>
#include <exception>
#include <string>
#include <utility>

#include "internal/check.h"

namespace distalgo::groups {
namespace {

// The ranks of one node: LOCAL_WORLD_SIZE, else every rank of `pg`.
int nodeSize(const c10d::ProcessGroup& pg) {
  const char* local = std::getenv("LOCAL_WORLD_SIZE");
  if (local == nullptr || *local == '\0') return pg.getSize();
  std::size_t used = 0;  // characters std::stoi read; none if it refused
  int size = 0;
  try {
    size = std::stoi(local, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  DISTALGO_CHECK_ARG(used == std::string(local).size(),
                     "distalgo::groups::SubgroupProvider: expected "
                     "LOCAL_WORLD_SIZE to be a number, got '",
                     local, "'");
  return size;
}

}  // namespace

SubgroupProvider::SubgroupProvider(std::optional<int> group_size,
                                   GroupOptions options)
    : group_size_(group_size), options_(std::move(options)) {}

SubgroupProvider SubgroupProvider::of(
    c10::intrusive_ptr<c10d::ProcessGroup> subgroup) {
  SubgroupProvider provider;
  provider.subgroup_ = std::move(subgroup);
  return provider;
}

c10::intrusive_ptr<c10d::ProcessGroup> SubgroupProvider::get(
    const c10::intrusive_ptr<c10d::Store>& store,
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg) {
  if (!subgroup_) {
    subgroup_ = newSubgroups(
        store, pg, group_size_ ? *group_size_ : nodeSize(*pg), options_);
  }
  return subgroup_;
}

bool SubgroupProvider::created() const { return static_cast<bool>(subgroup_); }

}  // namespace distalgo::groups
