#pragma once

// Process reuse: rank processes that outlive one test and run the fixture's
// next test on a fresh process group. A pool that saw a failure is thrown away
// and rebuilt for the next test.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "process/rank_process.h"
#include "process/rendezvous.h"
#include "wire/rank_launch.h"

namespace ranktest::internal {

class WorkerPool {
 public:
  // Starts `launch.world_size` workers (launch.test must be empty).
  WorkerPool(const RankLaunch& launch, StartMethod method, StoreKind store);

  // Sends the test to every worker; false if a worker is gone.
  bool dispatch(const std::string& test_full_name);
  std::vector<RankProcess*> ranks();

 private:
  Rendezvous rendezvous_;
  std::vector<std::unique_ptr<RankProcess>> workers_;
  int sequence_ = 0;
};

// The pools of the running suite, by world size, backend, start method and
// store. Released at the end of each suite and after any failure.
class WorkerPools {
 public:
  static WorkerPools& instance();
  WorkerPool& get(const RankLaunch& launch, StartMethod method,
                  StoreKind store);
  void release(const RankLaunch& launch, StartMethod method, StoreKind store);
  void releaseAll();

 private:
  static std::string key(const RankLaunch& launch, StartMethod method,
                         StoreKind store);
  std::map<std::string, std::unique_ptr<WorkerPool>> pools_;
};

}  // namespace ranktest::internal
