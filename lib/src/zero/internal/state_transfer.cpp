#include "zero/internal/state_transfer.h"

#include <ATen/ATen.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "internal/collective_device.h"
#include "zero/internal/optimizer_archive.h"

namespace distalgo::zero::internal {
namespace {

// An optimizer shaped like rank `source`'s local one: a group per global
// group with the shard's parameters and this rank's options for the group.
std::unique_ptr<torch::optim::Optimizer> shapedLike(
    const std::vector<ShardEntry>& shard,
    const torch::optim::Optimizer& options_from,
    const LocalOptimizerFactory& factory) {
  std::vector<torch::optim::OptimizerParamGroup> groups;
  for (const auto& group : options_from.param_groups()) {
    groups.emplace_back(std::vector<at::Tensor>{}, group.options().clone());
  }
  for (const auto& entry : shard) {
    groups[entry.group].params().push_back(entry.parameter);
  }
  return factory(std::move(groups));
}

// Broadcasts `bytes` from `source` (length, then the bytes); returns them.
std::string broadcastBytes(c10d::ProcessGroup& pg, int source,
                           const std::string& bytes) {
  c10d::BroadcastOptions options;
  options.rootRank = source;
  const c10::Device device = distalgo::internal::collectiveDevice(pg);
  std::vector<at::Tensor> length{
      at::full({1}, static_cast<std::int64_t>(bytes.size()),
               at::TensorOptions(at::kLong).device(device))};
  pg.broadcast(length, options)->wait();
  at::Tensor host = at::empty({length[0].item<std::int64_t>()}, at::kByte);
  if (pg.getRank() == source) {
    std::memcpy(host.data_ptr(), bytes.data(), bytes.size());
  }
  std::vector<at::Tensor> data{host.to(device)};
  pg.broadcast(data, options)->wait();
  host = data[0].cpu();
  return {static_cast<const char*>(host.data_ptr()),
          static_cast<std::size_t>(host.numel())};
}

}  // namespace

void transferState(
    c10d::ProcessGroup& pg, const std::vector<std::vector<ShardEntry>>& from,
    torch::optim::Optimizer& local, const LocalOptimizerFactory& factory,
    const std::function<int(const at::Tensor&)>& new_owner,
    const std::function<torch::optim::Optimizer&(const at::Tensor&)>&
        destination) {
  const int rank = pg.getRank();
  for (int source = 0; source < static_cast<int>(from.size()); ++source) {
    bool leaves = false;
    for (const auto& entry : from[source]) {
      leaves = leaves || new_owner(entry.parameter) != source;
    }
    std::vector<at::Tensor> arriving;
    for (const auto& entry : from[source]) {
      if (new_owner(entry.parameter) == rank) {
        arriving.push_back(entry.parameter);
      }
    }
    std::optional<LoadedPerDevice> received;
    if (leaves) {
      const auto bytes = broadcastBytes(
          pg, source, rank == source ? saveOptimizer(local) : "");
      if (rank != source) {
        // Onto this rank's devices: they were saved on `source`'s.
        received.emplace(arriving, bytes, [&] {
          return shapedLike(from[source], local, factory);
        });
      }
    } else if (rank != source) {
      continue;  // nothing leaves rank `source`
    }
    for (const auto& p : arriving) {
      auto& state = received ? received->of(p).state() : local.state();
      const auto it = state.find(stateKey(p));
      if (it != state.end())
        destination(p).state()[stateKey(p)] = std::move(it->second);
    }
  }
}

}  // namespace distalgo::zero::internal
