#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <vector>

#include "job/attempt_store.h"
#include "job/first_value.h"
#include "job/job_values.h"
#include "job/launched_job.h"
#include "job/test_agreement.h"
#include "process/interrupt.h"
#include "process/rank_process.h"
#include "rank/rank_runner.h"
#include "ranktest/settings.h"
#include "verdict/verdict.h"
#include "wire/check.h"
#include "wire/fields.h"
#include "wire/report_codec.h"
#include "wire/store_keys.h"

namespace ranktest::internal {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

}  // namespace

// One distributed test as this rank takes part in it: what run()'s steps
// share.
struct LaunchedJob::Round {
  const TestInstance& t;
  // What the child runs where not the registered test (runRanks).
  const std::function<void(const Rank&)>* body;
  SuperviseOptions options;
  int sequence;
  Clock::time_point start;
  std::chrono::milliseconds timeout;
  // When a peer's word is due, counted from now: the test's deadline, the
  // stack grace and the report grace.
  Clock::time_point dueFromNow() const {
    return Clock::now() + timeout + options.stack_grace + kReportGrace;
  }
  std::string keyOf(const char* what, int rank) const {
    return keys::testOfRank(sequence, what, rank);
  }
};

void LaunchedJob::phase(const Round& round, const std::string& what) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      Clock::now() - round.start)
                      .count();
  const std::string text =
      what + " (" + std::to_string(ms) + " ms into " + round.t.fullName() + ")";
  store_->set(keys::phase(launched_.rank), toBytes(text));
  heartbeat_->setPhase(text);
}

SuperviseResult LaunchedJob::run(const TestInstance& t,
                                 SuperviseOptions options,
                                 const std::optional<Skip>& local_skip,
                                 const std::function<void(const Rank&)>* body) {
  const int world = launched_.world_size;
  if (t.world_size != world) {
    RANKTEST_FAIL_STATE("ranktest: " + t.fullName() + " runs at " +
                        std::to_string(t.world_size) +
                        " ranks, but the launcher started " +
                        std::to_string(world));
  }
  if (disagreement_) RANKTEST_FAIL(*disagreement_);
  if (adoptLostRank()) return withoutLostRank();
  // Under RANKTEST_DEBUG_RANK no rank here sees the stopped rank's own
  // word that it waits for a debugger (its supervisor is on its host):
  // every rank lifts its deadline and waits as long as it takes.
  const std::chrono::milliseconds timeout = t.groupTimeout();
  options.timeout = timeout;
  Round round{t, body, std::move(options), sequence_++, Clock::now(), timeout};
  if (auto not_started = agreeOnTheTest(round)) return *not_started;
  if (auto skipped = agreeOnSkips(round, local_skip)) return *skipped;
  const auto reports_due = round.dueFromNow();
  const auto agreed = Clock::now();
  SuperviseResult all;
  const RankReport mine = superviseTheBody(round, all);
  phase(round, "waiting for the other ranks' reports");
  const auto reported = Clock::now();
  gatherReports(round, mine, reports_due, all);
  all.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      Clock::now() - round.start);
  heartbeat_->setPhase("between distributed tests, after " + t.fullName());
  if (settings().verbose) {
    const auto ms = [](Clock::duration d) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
    };
    std::cerr << "[ranktest] rank " << launched_.rank << ", " << t.fullName()
              << ": agreed to start in " << ms(agreed - round.start)
              << " ms, body and report " << ms(reported - agreed)
              << " ms, every report in " << ms(Clock::now() - reported) << " ms"
              << std::endl;
  }
  return all;
}

std::optional<SuperviseResult> LaunchedJob::agreeOnTheTest(Round& round) {
  const int me = launched_.rank;
  const TestInstance& t = round.t;
  // Every rank must be at the same test: one --gtest_filter, one binary.
  // Rank 0 may run plain tests first, for as long as they take: it is
  // waited for while its heartbeat moves. The others come from the test
  // before, which they ended together.
  setFirst(*store_, keys::testName(round.sequence, me), toBytes(t.fullName()));
  // Counted from when rank 0 came, however long it ran plain tests.
  auto agreement_due = round.dueFromNow();
  std::vector<std::string> tests;
  tests.reserve(static_cast<std::size_t>(launched_.world_size));
  for (int rank = 0; rank < launched_.world_size; ++rank) {
    if (rank == me) {
      tests.push_back(t.fullName());
      continue;
    }
    const Awaited test = awaitFrom(
        keys::testName(round.sequence, rank), rank,
        rank == 0 ? Clock::now() + std::chrono::hours(24) : agreement_due,
        /*at_test_start=*/true);
    if (test.how != Await::kArrived) {
      return notStarted(test, rank, "the start of its next test", t);
    }
    tests.push_back(test.value);
    if (rank == 0) agreement_due = round.dueFromNow();
  }
  disagreement_ = disagreementOn(sequence_, tests);
  if (disagreement_) {
    store_->set(keys::disagreement(), toBytes(*disagreement_));
    RANKTEST_FAIL(*disagreement_);
  }
  return std::nullopt;
}

std::optional<SuperviseResult> LaunchedJob::agreeOnSkips(
    Round& round, const std::optional<Skip>& local_skip) {
  const int world = launched_.world_size;
  // Skips are agreed on before any body starts (hosts differ, e.g. in GPUs).
  phase(round, "agreeing on skips");
  setFirst(*store_, round.keyOf("skip", launched_.rank),
           toBytes(encodeSkipDecision(local_skip)));
  std::vector<std::optional<Skip>> skips;
  skips.reserve(static_cast<std::size_t>(world));
  const auto agreement_due = round.dueFromNow();
  for (int rank = 0; rank < world; ++rank) {
    const Awaited skip = awaitFrom(round.keyOf("skip", rank), rank,
                                   agreement_due, /*at_test_start=*/true);
    if (skip.how != Await::kArrived) {
      return notStarted(skip, rank, "its decision on skipping", round.t);
    }
    skips.push_back(decodeSkipDecision(skip.value));
  }
  const auto skipper = std::find_if(
      skips.begin(), skips.end(), [](const auto& s) { return s.has_value(); });
  if (skipper == skips.end()) return std::nullopt;
  SuperviseResult all;
  for (int rank = 0; rank < world; ++rank) {
    RankReport r;
    r.rank = rank;
    if (skips[rank]) {
      r.skip = skips[rank];
      r.code = static_cast<int>(skips[rank]->code);
    } else {
      r.end = RankReport::End::kStopped;
      r.stopped_because =
          "rank " + std::to_string(skipper - skips.begin()) + " skipped";
    }
    all.ranks.push_back(r);
  }
  return all;
}

RankReport LaunchedJob::superviseTheBody(Round& round, SuperviseResult& all) {
  const int me = launched_.rank;
  const TestInstance& t = round.t;
  RankLaunch launch;
  launch.rank = me;
  launch.world_size = launched_.world_size;
  launch.local_rank = layout_.local_rank;
  launch.local_world_size = layout_.local_world_size;
  launch.node_rank = layout_.node_rank;
  launch.backend = t.backend;
  launch.store = "tcp:" + store_address_;
  // The body connects anew: its group's keys are this attempt's too.
  launch.store_prefix = attemptKeyPrefix(launched_.restart_count) +
                        keys::testGroup(round.sequence);
  launch.gloo_host = gloo_host_;
  launch.timeout = round.timeout;
  launch.debug_wait = settings().debug_rank == me;
  launch.check_collectives = t.options.check_collectives;
  std::unique_ptr<RankProcess> child;
  {
    const auto paused = heartbeat_->pauseForFork(kForkPauseLimit);
    if (round.body != nullptr) {
      const std::function<void(const Rank&)>& body = *round.body;
      child =
          RankProcess::start(launch, StartMethod::kFork, -1, false,
                             [launch, &body] { runRankBody(launch, body); });
    } else {
      launch.test = t.fullName();
      child = RankProcess::start(launch, t.options.start_method, -1, false);
    }
  }
  phase(round, "supervising its body in pid " + std::to_string(child->pid()));
  const std::string abort_key = keys::testAbort(round.sequence);
  round.options.stop_check = [&] { return published(abort_key); };
  supervising_ = true;
  const SuperviseResult local = supervise({child.get()}, round.options);
  supervising_ = false;
  round.options.stop_check = nullptr;  // it refers to abort_key
  RankReport report = local.ranks.front();
  report.rank = me;
  report.where = where_;
  // Rank 0 reports its own interrupt as such; the others' reach it as a
  // failure, so that a rank not interrupted itself does not pass the test.
  if (local.interrupted_by != 0 && me != 0) {
    report.failures.push_back(
        RankFailure{t.file, t.line,
                    "this rank's run was interrupted by " +
                        describeSignal(local.interrupted_by) +
                        " while the test's body ran"});
  }
  if (report.failed() || local.interrupted_by != 0) {
    store_->set(abort_key,
                toBytes("rank " + std::to_string(me) +
                        (report.failed() ? " failed" : " was interrupted")));
  }
  setFirst(*store_, round.keyOf("report", me), toBytes(encodeReport(report)));
  all.timed_out = local.timed_out;
  all.interrupted_by = local.interrupted_by;
  return report;
}

void LaunchedJob::gatherReports(const Round& round, const RankReport& mine,
                                Clock::time_point reports_due,
                                SuperviseResult& all) {
  const TestInstance& t = round.t;
  // Interrupted, the run ends 3 s after the signal (interrupted_run.h):
  // the others' reports are taken as they come within 2 s.
  const auto interrupt_due = Clock::now() + kInterruptedReportWait;
  for (int rank = 0; rank < launched_.world_size; ++rank) {
    if (rank == launched_.rank) {
      all.ranks.push_back(mine);
      continue;
    }
    const bool interrupted = all.interrupted_by != 0;
    const Awaited sent = awaitFrom(
        round.keyOf("report", rank), rank,
        interrupted ? std::min(reports_due, interrupt_due) : reports_due);
    if (sent.how == Await::kArrived) {
      all.ranks.push_back(decodeReport(sent.value));
    } else if (interrupted || sent.how == Await::kInterrupted ||
               sent.how == Await::kPeerInterrupted) {
      all.interrupted_by = interruptSignal();
      RankReport missing;
      missing.rank = rank;
      missing.end = RankReport::End::kStopped;
      missing.stopped_because = whoWasInterrupted(sent, "this run") +
                                " was interrupted before its report came";
      if (sent.how == Await::kPeerInterrupted) {
        missing.failures.push_back(peerInterrupted(
            t,
            static_cast<int>(integerIn(sent.value, "an interrupted rank's mark",
                                       0, launched_.world_size - 1)),
            "before rank " + std::to_string(rank) + "'s report came"));
      }
      all.ranks.push_back(missing);
    } else {
      all.ranks.push_back(giveUpOn(rank, sent.how, "its report", t.fullName()));
    }
    if (all.ranks.back().end == RankReport::End::kTimedOut) {
      all.timed_out = true;
    }
  }
}

}  // namespace ranktest::internal
