#include "distalgo/groups/subgroups.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include "internal/check.h"
#include "internal/collective_device.h"
#include "torch_compat/process_group.h"

namespace distalgo::groups {
namespace {

constexpr const char* kNextIdKey = "distalgo/groups/next_id";

// Reserves `count` consecutive group ids, unique across every group created
// on `store`, and returns the first. Rank 0 of `pg` draws them from the store
// and broadcasts them: a per-process counter would give two disjoint groups
// that each create a subgroup the same id.
std::int64_t reserveGroupIds(const c10::intrusive_ptr<c10d::Store>& store,
                             const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
                             int count) {
  auto first = at::zeros({1}, at::TensorOptions(at::kLong).device(
                                  distalgo::internal::collectiveDevice(*pg)));
  if (pg->getRank() == 0) first.fill_(store->add(kNextIdKey, count) - count);
  std::vector<at::Tensor> tensors{first};
  pg->broadcast(tensors)->wait();
  return first.item<std::int64_t>();
}

// The group's Gloo devices: the options' hostname, else one per interface of
// GLOO_SOCKET_IFNAME (comma-separated, as PyTorch reads it; ranktest sets it
// under a launcher), else Gloo's default.
std::vector<std::shared_ptr<::gloo::transport::Device>> glooDevices(
    const GroupOptions& options) {
  if (!options.hostname.empty()) {
    return {c10d::ProcessGroupGloo::createDeviceForHostname(options.hostname)};
  }
  std::vector<std::shared_ptr<::gloo::transport::Device>> devices;
  const char* interfaces = std::getenv("GLOO_SOCKET_IFNAME");
  std::string rest = interfaces == nullptr ? "" : interfaces;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    const std::string name = rest.substr(0, comma);
    if (!name.empty()) {
      devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(name));
    }
    rest = comma == std::string::npos ? "" : rest.substr(comma + 1);
  }
  if (devices.empty()) {
    devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
  }
  return devices;
}

c10::intrusive_ptr<c10d::ProcessGroup> createGlooGroup(
    const c10::intrusive_ptr<c10d::Store>& store, std::int64_t id,
    int group_rank, int group_size, const GroupOptions& options) {
  auto gloo_options = c10d::ProcessGroupGloo::Options::create(options.timeout);
  gloo_options->devices = glooDevices(options);
  auto prefixed = c10::make_intrusive<c10d::PrefixStore>(
      "distalgo/group/" + std::to_string(id), store);
  return torch_compat::asProcessGroup(
      c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, group_rank,
                                                  group_size, gloo_options),
      prefixed, torch_compat::BackendKind::kGloo, {c10::kCPU, c10::kCUDA});
}

// Every rank of `pg` calls this once its part of a new group is built: a
// rank that returns while a peer still connects could use or destroy the
// group under it ("Connection closed by peer"). PyTorch's new_group waits on
// a store-based barrier for the same reason.
c10::intrusive_ptr<c10d::ProcessGroup> afterEveryRankBuilt(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    c10::intrusive_ptr<c10d::ProcessGroup> group) {
  pg->barrier()->wait();
  return group;
}

void checkRanks(const std::vector<int>& sorted, int world_size) {
  constexpr const char* kNewGroup = "distalgo::groups::newGroup: ";
  DISTALGO_CHECK_ARG(!sorted.empty(), kNewGroup,
                     "expected at least one rank, got none");
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    DISTALGO_CHECK_ARG(sorted[i] >= 0 && sorted[i] < world_size, kNewGroup,
                       "expected ranks in [0, ", world_size, "), got ",
                       sorted[i]);
    DISTALGO_CHECK_ARG(i == 0 || sorted[i] != sorted[i - 1], kNewGroup,
                       "expected distinct ranks, got ", sorted[i], " twice");
  }
}

}  // namespace

c10::intrusive_ptr<c10d::ProcessGroup> newGroup(
    const c10::intrusive_ptr<c10d::Store>& store,
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, std::vector<int> ranks,
    const GroupOptions& options) {
  std::sort(ranks.begin(), ranks.end());
  checkRanks(ranks, pg->getSize());
  const auto id = reserveGroupIds(store, pg, 1);
  const auto member = std::find(ranks.begin(), ranks.end(), pg->getRank());
  if (member == ranks.end()) return afterEveryRankBuilt(pg, {});
  return afterEveryRankBuilt(
      pg, createGlooGroup(store, id, static_cast<int>(member - ranks.begin()),
                          static_cast<int>(ranks.size()), options));
}

c10::intrusive_ptr<c10d::ProcessGroup> newSubgroups(
    const c10::intrusive_ptr<c10d::Store>& store,
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int group_size,
    const GroupOptions& options) {
  const int world_size = pg->getSize();
  DISTALGO_CHECK_ARG(
      group_size > 0 && group_size <= world_size &&
          world_size % group_size == 0,
      "distalgo::groups::newSubgroups: expected a group size in [1, ",
      world_size, "] that divides the world size ", world_size, ", got ",
      group_size);
  const auto first_id = reserveGroupIds(store, pg, world_size / group_size);
  const int index = pg->getRank() / group_size;
  return afterEveryRankBuilt(
      pg, createGlooGroup(store, first_id + index, pg->getRank() % group_size,
                          group_size, options));
}

}  // namespace distalgo::groups
