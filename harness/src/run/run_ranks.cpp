#include "ranktest/run_ranks.h"

#include <memory>
#include <stdexcept>
#include <vector>

#include "process/rank_process.h"
#include "process/rendezvous.h"
#include "process/supervisor.h"
#include "rank/rank_runner.h"
#include "ranktest/settings.h"
#include "verdict/verdict.h"
#include "wire/check.h"

namespace ranktest {
namespace {

void checkOptions(const RunOptions& options) {
  if (options.world_size < 1) {
    RANKTEST_FAIL_ARG("ranktest::runRanks: world_size is " +
                      std::to_string(options.world_size) +
                      "; it must be at least 1");
  }
  if (options.backend != "gloo" && options.backend != "nccl") {
    RANKTEST_FAIL_ARG("ranktest::runRanks: unknown backend '" +
                      options.backend + "' (gloo or nccl)");
  }
  if (options.timeout.count() <= 0) {
    RANKTEST_FAIL_ARG(
        "ranktest::runRanks: the timeout must be "
        "positive");
  }
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

}  // namespace

RunResult runRanks(const RunOptions& options,
                   const std::function<void(const Rank&)>& body) {
  checkOptions(options);
  // As for a test: the environment scales the deadline, streams the output
  // and sizes the reports' tails.
  const Settings& env = settings();
  if (!env.error.empty()) {
    RunResult refused;
    refused.message = "[ranktest] bad environment: " + env.error;
    return refused;
  }
  const std::chrono::milliseconds timeout = env.scaled(options.timeout);
  internal::Rendezvous rendezvous(options.store);
  std::vector<std::unique_ptr<internal::RankProcess>> owned;
  std::vector<internal::RankProcess*> ranks;
  for (int rank = 0; rank < options.world_size; ++rank) {
    internal::RankLaunch launch;
    launch.rank = rank;
    launch.world_size = options.world_size;
    launch.backend = options.backend;
    launch.store = rendezvous.address();
    launch.timeout = timeout;
    launch.check_collectives = options.check_collectives;
    owned.push_back(internal::RankProcess::start(
        launch, StartMethod::kFork, rendezvous.fileFd(), /*reusable=*/false,
        [launch, &body] { internal::runRankBody(launch, body); }));
    ranks.push_back(owned.back().get());
  }
  rendezvous.serve();
  internal::SuperviseOptions supervise_options;
  supervise_options.timeout = timeout;
  supervise_options.verbose = options.stream_output || env.verbose;
  supervise_options.tail_lines = env.output_lines;
  const internal::SuperviseResult supervised =
      internal::supervise(ranks, supervise_options);

  const internal::Verdict verdict = internal::judge(
      {"ranktest::runRanks", "", 0,
       "fork, " + toString(options.store) + ", " + options.backend, timeout,
       ""},
      supervised);
  RunResult result;
  result.outcome = outcomeOf(verdict.kind);
  result.elapsed = supervised.elapsed;
  result.message = verdict.skip_message;
  for (const internal::VerdictFailure& failure : verdict.failures) {
    result.message += failure.text;
  }
  return result;
}

}  // namespace ranktest
