#include "process/worker_pool.h"

#include "plan/open_files_limit.h"
#include "ranktest/settings.h"
#include "wire/record.h"

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
  const std::string wanted = key(launch, method, store);
  auto found = pools_.find(wanted);
  if (found == pools_.end() || !found->second) {
    // Under a low RLIMIT_NOFILE the pools of the suite's other sizes hold
    // the descriptors this one needs (pipes, store connections): they go,
    // and start again when their tests come, rather than c10d failing (its
    // store server aborts the process on EMFILE). What a test needs alone
    // is checked as its ranks start.
    if (!descriptorsToSpare(
            openFilesNeeded(launch.world_size, store == StoreKind::kTcp))) {
      pools_.clear();
    }
  }
  auto& pool = pools_[wanted];
  if (!pool) pool = std::make_unique<WorkerPool>(launch, method, store);
  return *pool;
}

void WorkerPools::release(const RankLaunch& launch, StartMethod method,
                          StoreKind store) {
  pools_.erase(key(launch, method, store));
}

void WorkerPools::releaseAll() { pools_.clear(); }

}  // namespace ranktest::internal
