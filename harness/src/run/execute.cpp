#include "run/execute.h"

#include <c10/util/Exception.h>

#include <algorithm>
#include <memory>
#include <system_error>
#include <vector>

#include "job/launched_job.h"
#include "process/rank_process.h"
#include "process/rendezvous.h"
#include "process/worker_pool.h"
#include "rank/rank_runner.h"
#include "ranktest/settings.h"
#include "wire/check.h"

namespace ranktest::internal {
namespace {

RankLaunch launchFor(const TestInstance& t, bool one_shot) {
  RankLaunch launch;
  launch.world_size = t.world_size;
  launch.backend = t.backend;
  launch.timeout = t.groupTimeout();
  launch.check_collectives = t.options.check_collectives;
  launch.test = one_shot ? t.fullName() : std::string();
  return launch;
}

SuperviseResult runFresh(const RunPlan& plan) {
  const TestInstance& t = plan.t;
  Rendezvous rendezvous(t.options.store);
  const std::optional<int> debug_rank = settings().debug_rank;
  std::vector<std::unique_ptr<RankProcess>> owned;
  std::vector<RankProcess*> ranks;
  for (int rank = 0; rank < t.world_size; ++rank) {
    RankLaunch launch = launchFor(t, /*one_shot=*/true);
    launch.rank = rank;
    launch.store = rendezvous.address();
    launch.debug_wait = debug_rank == rank;
    if (plan.body != nullptr) {
      const std::function<void(const Rank&)>& body = *plan.body;
      owned.push_back(RankProcess::start(
          launch, StartMethod::kFork, rendezvous.fileFd(), false,
          [launch, &body] { runRankBody(launch, body); }));
    } else {
      owned.push_back(RankProcess::start(launch, t.options.start_method,
                                         rendezvous.fileFd(), false));
    }
    ranks.push_back(owned.back().get());
  }
  rendezvous.serve();
  return supervise(ranks, plan.supervise);
}

SuperviseResult runReused(const RunPlan& plan) {
  const TestInstance& t = plan.t;
  RankLaunch launch = launchFor(t, /*one_shot=*/false);
  auto& pools = WorkerPools::instance();
  WorkerPool* pool =
      &pools.get(launch, t.options.start_method, t.options.store);
  if (!pool->dispatch(t.fullName())) {
    // A worker died between tests; start afresh once.
    pools.release(launch, t.options.start_method, t.options.store);
    pool = &pools.get(launch, t.options.start_method, t.options.store);
    if (!pool->dispatch(t.fullName())) {
      pools.release(launch, t.options.start_method, t.options.store);
      RANKTEST_FAIL(
          "ranktest: freshly started workers exited before their first test");
    }
  }
  SuperviseOptions options = plan.supervise;
  options.reused = true;
  SuperviseResult result = supervise(pool->ranks(), options);
  const bool clean =
      !result.timed_out && std::all_of(result.ranks.begin(), result.ranks.end(),
                                       [](const RankReport& r) {
                                         return r.passed() || r.skipped();
                                       });
  if (!clean) pools.release(launch, t.options.start_method, t.options.store);
  return result;
}

}  // namespace

Executed execute(const RunPlan& plan) {
  Executed executed;
  if (LaunchedJob* job = LaunchedJob::current()) {
    try {
      executed.result =
          job->run(plan.t, plan.supervise, plan.local_skip, plan.body);
    } catch (const c10::Error& error) {
      // The job's store failed (libtorch 2.x); the harness's own errors (a
      // disagreement, a wrong size) keep their documented wording.
      executed.job_failure = job->describeJobFailure(error);
    } catch (const std::system_error& error) {
      executed.job_failure = job->describeJobFailure(error);  // 1.13's store
    }
  } else if (plan.body == nullptr && plan.t.options.reuse_processes) {
    executed.result = runReused(plan);
  } else {
    executed.result = runFresh(plan);
  }
  return executed;
}

std::string describeRun(const TestInstance& t) {
  if (const LaunchedJob* job = LaunchedJob::current()) {
    return "under " + job->launched().launcher + ", " +
           toString(t.options.start_method) + ", " + t.backend;
  }
  return toString(t.options.start_method) + ", " + toString(t.options.store) +
         ", " + t.backend +
         (t.options.reuse_processes ? ", reused processes" : "");
}

}  // namespace ranktest::internal
