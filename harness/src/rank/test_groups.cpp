#include "rank/test_groups.h"

#include <chrono>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>

#include "process/rendezvous.h"
#include "rank/process_group_factory.h"
#include "wire/store_keys.h"

namespace ranktest::internal {

TestGroup buildTestGroup(const RankLaunch& launch,
                         const c10::intrusive_ptr<c10d::Store>& store) {
  TestGroup group{
      store,
      createProcessGroup(launch.backend, store, launch.rank, launch.world_size,
                         launch.local_rank.value_or(launch.rank),
                         launch.timeout, launch.gloo_host)};
  // Gloo's full-mesh connect can finish in one rank before the others; a
  // rank that then ran a short body and exited would break their connect.
  // The barrier holds every rank until the group is whole.
  group.pg->barrier()->wait();
  return group;
}

WorkerGroups::WorkerGroups(const RankLaunch& launch, int ahead)
    : launch_(launch), ahead_(ahead) {}

void WorkerGroups::startBuilding(long sequence) {
  if (building_.count(sequence) != 0) return;
  building_[sequence] =
      std::async(std::launch::async, [launch = launch_, sequence] {
        auto store = c10::make_intrusive<c10d::PrefixStore>(
            keys::pooledGroup(sequence),
            connectStore(launch.store, launch.world_size, launch.timeout));
        return buildTestGroup(launch, store);
      });
}

TestGroup WorkerGroups::take(long sequence) {
  for (long next = sequence; next <= sequence + ahead_; ++next) {
    startBuilding(next);
  }
  auto ready = building_.extract(sequence);
  return ready.mapped().get();
}

void WorkerGroups::retire(TestGroup used) {
  std::erase_if(retiring_, [](const std::future<void>& done) {
    return done.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  });
  retiring_.push_back(
      std::async(std::launch::async, [group = std::move(used)]() mutable {
        group.pg.reset();
        group.store.reset();
      }));
}

}  // namespace ranktest::internal
