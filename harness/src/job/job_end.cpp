#include <chrono>
#include <iostream>
#include <limits>
#include <string>

#include "job/first_value.h"
#include "job/job_values.h"
#include "job/launched_job.h"
#include "job/liveness/sentinel.h"
#include "job/test_agreement.h"
#include "wire/fields.h"
#include "wire/store_keys.h"

namespace ranktest::internal {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

}  // namespace

int LaunchedJob::finish(int exit_code) {
  if (finished_) return exit_code != 0 ? exit_code : *finished_;
  try {
    finished_ = agreeOnTheEnd(exit_code);
  } catch (const std::exception& error) {
    end_failures_ +=
        (end_failures_.empty() ? "" : "\n") + describeJobFailure(error);
    finished_ = exit_code != 0 ? exit_code : 1;
  }
  silence_watch_->stop();
  heartbeat_->stop();
  return *finished_;
}

int LaunchedJob::agreeOnTheEnd(int exit_code) {
  heartbeat_->setPhase("finishing the run");
  // For a rank still at a test: this rank's run has ended.
  setFirst(*store_, keys::testName(sequence_, launched_.rank),
           toBytes(kNoMoreTests));
  const int job_code = launched_.rank == 0 ? endAsRankZero(exit_code)
                                           : endAsOtherRank(exit_code);
  // A rank given up on may be stopped, and its launcher waits for it.
  const auto ended_due = Clock::now() + 3s;
  for (const auto& [rank, reason] : given_up_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        ended_due - Clock::now());
    endGivenUpRank(*store_, rank, reason, std::max(left, 1ms));
  }
  return job_code;
}

int LaunchedJob::endAsOtherRank(int exit_code) {
  const int me = launched_.rank;
  int job_code = exit_code;
  try {
    setFirst(*store_, keys::testsOver(me), toBytes("1"));
    // Rank 0 may still run plain tests, for as long as they take; if it
    // dies, so may its store (mpirun's). The key is this rank's own: an
    // interrupt ends the wait for it.
    const Awaited code =
        lost_rank_ == 0 ? Awaited{Await::kSilent, ""}
                        : awaitFrom(keys::exitCode(me), 0,
                                    Clock::now() + std::chrono::hours(24),
                                    /*at_test_start=*/false, /*joining=*/false,
                                    /*own_key=*/true);
    if (code.how == Await::kArrived) {
      const int rank0 = static_cast<int>(integerIn(
          code.value, "the job's exit code", std::numeric_limits<int>::min(),
          std::numeric_limits<int>::max()));
      if (job_code == 0) job_code = rank0;
    } else {
      if (lost_rank_ != 0 && code.how != Await::kInterrupted) {
        giveUpOn(0, code.how, "the job's exit code", "the end of the run");
      }
      if (job_code == 0) job_code = 1;
    }
    setFirst(*store_, keys::done(me), toBytes("1"));
  } catch (const std::exception& error) {
    std::cerr << "[ranktest] rank " << me
              << " got no exit code from rank 0: " << error.what() << std::endl;
    if (job_code == 0) job_code = 1;
  }
  return job_code;
}

bool LaunchedJob::hearFromEveryRank(std::string (*key)(int),
                                    const std::string& what, int& job_code) {
  const auto until = Clock::now() + 30s;
  for (int rank = 1; rank < launched_.world_size; ++rank) {
    if (given_up_.count(rank) != 0) continue;
    const Await how = awaitFrom(key(rank), rank, until).how;
    if (how == Await::kInterrupted) return false;
    if (how != Await::kArrived) {
      // After the last test: no test's report carries it.
      addEndFailure(
          giveUpOn(rank, how, what, "the end of the run").tail.front());
      if (job_code == 0) job_code = 1;
    }
  }
  return true;
}

void LaunchedJob::addEndFailure(const std::string& line) {
  end_failures_ += (end_failures_.empty() ? "" : "\n") + line;
}

int LaunchedJob::endAsRankZero(int exit_code) {
  int job_code = exit_code;
  // Before the exit code: a rank with tests left finds that this rank has
  // none, and every rank's code must say so.
  if (hearFromEveryRank(&keys::testsOver, "word that its tests are over",
                        job_code)) {
    // Found by a rank still at a test after this rank's run had ended:
    // nobody has reported it here.
    const std::optional<std::string> found = published(keys::disagreement());
    if (found && !disagreement_) {
      addEndFailure("[ranktest] " + *found);
      if (job_code == 0) job_code = 1;
    }
  }
  for (int rank = 1; rank < launched_.world_size; ++rank) {
    setFirst(*store_, keys::exitCode(rank), toBytes(std::to_string(job_code)));
  }
  // The store may live in this process (mpirun's): wait for the others to
  // read their last reports and the exit code.
  hearFromEveryRank(&keys::done, "word that it finished", job_code);
  return job_code;
}

}  // namespace ranktest::internal
