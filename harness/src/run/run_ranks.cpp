#include "ranktest/run_ranks.h"

#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "job/launched_job.h"
#include "ranktest/settings.h"
#include "run/execute.h"
#include "verdict/verdict.h"
#include "wire/check.h"

namespace ranktest {
namespace {

using internal::LaunchedJob;

void checkOptions(const RunOptions& options) {
  RANKTEST_CHECK_ARG(options.world_size >= 1,
                     "ranktest::runRanks: world_size is ", options.world_size,
                     "; it must be at least 1");
  RANKTEST_CHECK_ARG(options.backend == "gloo" || options.backend == "nccl",
                     "ranktest::runRanks: unknown backend '", options.backend,
                     "' (gloo or nccl)");
  RANKTEST_CHECK_ARG(options.timeout.count() > 0,
                     "ranktest::runRanks: the timeout must be positive");
}

RunResult::Outcome outcomeOf(internal::Verdict::Kind kind) {
  switch (kind) {
    case internal::Verdict::Kind::kPassed:
      return RunResult::Outcome::kPassed;
    case internal::Verdict::Kind::kSkipped:
      return RunResult::Outcome::kSkipped;
    case internal::Verdict::Kind::kFailed:
      break;
  }
  return RunResult::Outcome::kFailed;
}

// The job a launcher started this process in, joined on the first call;
// nullptr without a launcher.
LaunchedJob* launchedJob() {
  static std::mutex joining;
  const std::lock_guard<std::mutex> lock(joining);
  static bool looked = false;
  if (LaunchedJob::current() == nullptr && !looked) {
    std::unique_ptr<LaunchedJob> job =
        LaunchedJob::join(LaunchedJob::formingLimit());
    looked = true;
    if (job) LaunchedJob::setCurrent(std::move(job));
  }
  return LaunchedJob::current();
}

RunResult endedUnstarted(RunResult::Outcome outcome, std::string message) {
  RunResult result;
  result.outcome = outcome;
  result.message = std::move(message);
  return result;
}

// The plan's instance: what the run is, in the words a test's would be.
internal::TestInstance instanceOf(const RunOptions& options, int run,
                                  std::chrono::milliseconds timeout) {
  internal::TestInstance t;
  t.suite = "ranktest::runRanks";
  t.name = "run" + std::to_string(run);
  t.world_size = options.world_size;
  t.backend = options.backend;
  t.options.timeout = timeout;
  t.options.start_method = StartMethod::kFork;
  t.options.store = options.store;
  t.options.check_collectives = options.check_collectives;
  return t;
}

}  // namespace

RunResult runRanks(const RunOptions& options,
                   const std::function<void(const Rank&)>& body) {
  checkOptions(options);
  // As for a test: the environment scales the deadline, streams the output
  // and sizes the reports' tails.
  const Settings& env = settings();
  if (!env.error.empty()) {
    return endedUnstarted(RunResult::Outcome::kFailed,
                          "[ranktest] bad environment: " + env.error);
  }
  LaunchedJob* job = launchedJob();
  if (job != nullptr) {
    const int world = job->launched().world_size;
    if (options.world_size != world) {
      return endedUnstarted(
          RunResult::Outcome::kSkipped,
          "ranktest::runRanks: a run of " + std::to_string(options.world_size) +
              " ranks, but the launcher started " + std::to_string(world));
    }
    if (::testing::UnitTest::GetInstance()->current_test_info() != nullptr) {
      return endedUnstarted(
          RunResult::Outcome::kFailed,
          "ranktest::runRanks: under a launcher it runs in a program's own "
          "main, not inside a googletest test (only rank 0 runs a plain "
          "test: the other ranks would never take part)");
    }
  }
  static int runs = 0;
  const internal::TestInstance t =
      instanceOf(options, ++runs, env.scaled(options.timeout));
  internal::RunPlan plan{t, {}, &body};
  plan.supervise.timeout = t.timeout();
  plan.supervise.verbose = options.stream_output || env.verbose;
  plan.supervise.tail_lines = env.output_lines;
  const internal::Executed executed = internal::execute(plan);
  if (!executed.job_failure.empty()) {
    return endedUnstarted(RunResult::Outcome::kFailed, executed.job_failure);
  }
  const internal::Verdict verdict = internal::judge(
      {"ranktest::runRanks", "", 0, internal::describeRun(t), t.timeout(), ""},
      executed.result);
  RunResult result;
  result.outcome = outcomeOf(verdict.kind);
  result.elapsed = executed.result.elapsed;
  result.message = verdict.skip_message;
  for (const internal::VerdictFailure& failure : verdict.failures) {
    result.message += failure.text;
  }
  return result;
}

std::optional<LaunchedJobPlace> launchedJobPlace() {
  const LaunchedJob* job = launchedJob();
  if (job == nullptr) return std::nullopt;
  return LaunchedJobPlace{job->launched().rank, job->launched().world_size};
}

int finishRanks(int exit_code) {
  LaunchedJob* job = LaunchedJob::current();
  return job == nullptr ? exit_code : job->finish(exit_code);
}

}  // namespace ranktest
