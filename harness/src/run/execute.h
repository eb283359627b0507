#pragma once

// The one pipeline of a run of ranks. A plan is built in exactly two
// places: from a registered test's instance (run/launcher.cpp) and from the
// public runRanks options (run/run_ranks.cpp). execute() starts its ranks
// as the process's situation says (as this rank of the launched job, from
// the reused pool, or fresh) and returns every rank's report, for the one
// judge (verdict/verdict.h).

#include <functional>
#include <optional>
#include <string>

#include "plan/registry.h"
#include "process/supervisor.h"
#include "ranktest/run_ranks.h"

namespace ranktest::internal {

// What runs, and how it is watched.
struct RunPlan {
  // What runs: its world size, backend and options (timeout scaled).
  const TestInstance& t;
  // How its ranks are supervised (deadline, output).
  SuperviseOptions supervise;
  // runRanks' body, in memory: forked in each rank instead of the
  // registered test `t` names.
  const std::function<void(const Rank&)>* body = nullptr;
  // Under a launcher, this host's launch conditions: the ranks agree on
  // skipping before any body starts. (Without one, the caller skips.)
  std::optional<Skip> local_skip;
};

// How a plan ran.
struct Executed {
  SuperviseResult result;
  // Under a launcher, where the job's store failed: what that means for the
  // run, in words (LaunchedJob::describeJobFailure); the result is empty.
  std::string job_failure;
};

// Runs `plan`: as this rank of the launched job where a launcher started
// this process, else its ranks from the reused pool (the test's option) or
// fresh. Throws as the steps do (a rank's start, the job's disagreements).
Executed execute(const RunPlan& plan);

// "under mpirun, fork, gloo" or "fork, file, gloo, reused processes": how
// `t` runs here, for the report's first line.
std::string describeRun(const TestInstance& t);

}  // namespace ranktest::internal
