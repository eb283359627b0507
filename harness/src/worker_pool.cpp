#include "ranktest/internal/worker_pool.h"

#include "ranktest/internal/record.h"
#include "ranktest/settings.h"

namespace ranktest::internal {

WorkerPool::WorkerPool(const RankLaunch& launch, StartMethod method,
                       StoreKind store)
    : rendezvous_(store) {
  for (int rank = 0; rank < launch.world_size; ++rank) {
    RankLaunch worker = launch;
    worker.rank = rank;
    worker.store = rendezvous_.address();
    worker.debug_wait = settings().debug_rank == rank;
    workers_.push_back(RankProcess::start(worker, method, rendezvous_.fileFd(),
                                          /*reusable=*/true));
  }
  rendezvous_.serve();
}

bool WorkerPool::dispatch(const std::string& test_full_name) {
  const RunRecord run{test_full_name, sequence_++};
  for (auto& worker : workers_) {
    if (!sendRun(worker->controlFd(), run)) return false;
  }
  return true;
}

std::vector<RankProcess*> WorkerPool::ranks() {
  std::vector<RankProcess*> out;
  out.reserve(workers_.size());
  for (auto& worker : workers_) out.push_back(worker.get());
  return out;
}

WorkerPools& WorkerPools::instance() {
  static WorkerPools pools;
  return pools;
}

std::string WorkerPools::key(const RankLaunch& launch, StartMethod method,
                             StoreKind store) {
  return std::to_string(launch.world_size) + "|" + launch.backend + "|" +
         toString(method) + "|" + toString(store);
}

WorkerPool& WorkerPools::get(const RankLaunch& launch, StartMethod method,
                             StoreKind store) {
  auto& pool = pools_[key(launch, method, store)];
  if (!pool) pool = std::make_unique<WorkerPool>(launch, method, store);
  return *pool;
}

void WorkerPools::release(const RankLaunch& launch, StartMethod method,
                          StoreKind store) {
  pools_.erase(key(launch, method, store));
}

void WorkerPools::releaseAll() { pools_.clear(); }

}  // namespace ranktest::internal
