#include <chrono>
#include <iostream>
#include <mutex>
#include <string>

#include "job/first_value.h"
#include "job/job_values.h"
#include "job/launched_job.h"
#include "process/interrupt.h"
#include "ranktest/settings.h"
#include "wire/check.h"
#include "wire/duration_text.h"
#include "wire/fields.h"
#include "wire/store_keys.h"

namespace ranktest::internal {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

}  // namespace

SuperviseResult LaunchedJob::withoutLostRank(
    std::optional<RankReport> lost) const {
  SuperviseResult all;
  for (int rank = 0; rank < launched_.world_size; ++rank) {
    RankReport r;
    r.rank = rank;
    if (rank == *lost_rank_ && lost) {
      r = *lost;
    } else if (rank == *lost_rank_) {
      r.end = RankReport::End::kTimedOut;
      r.tail.push_back("[ranktest] rank " + std::to_string(rank) +
                       " stopped reporting in " + lost_in_ +
                       "; the job gave up on it");
    } else {
      r.end = RankReport::End::kStopped;
      r.stopped_because = "rank " + std::to_string(*lost_rank_) + " is gone";
    }
    all.ranks.push_back(r);
  }
  all.timed_out = true;
  return all;
}

SuperviseResult LaunchedJob::notStarted(const Awaited& awaited, int rank,
                                        const std::string& waited_for,
                                        const TestInstance& t) {
  const std::string test = t.fullName();
  const Await how = awaited.how;
  if (how == Await::kJobGaveUp && adoptLostRank()) return withoutLostRank();
  if (how == Await::kInterrupted || how == Await::kPeerInterrupted) {
    return interruptedBeforeTheBody(awaited, t);
  }
  return withoutLostRank(giveUpOn(rank, how, waited_for, test));
}

std::string LaunchedJob::whoWasInterrupted(const Awaited& awaited,
                                           const std::string& self) {
  return awaited.how == Await::kPeerInterrupted ? "rank " + awaited.value
                                                : self;
}

RankFailure LaunchedJob::peerInterrupted(const TestInstance& t, int rank,
                                         const std::string& when) {
  return RankFailure{t.file, t.line,
                     "rank " + std::to_string(rank) +
                         "'s run was interrupted (its launcher was signalled, "
                         "not this rank's) " +
                         when + ": this test's outcome is unknown"};
}

SuperviseResult LaunchedJob::interruptedBeforeTheBody(
    const Awaited& awaited, const TestInstance& t) const {
  SuperviseResult all;
  all.interrupted_by = interruptSignal();
  const std::string interrupted = whoWasInterrupted(awaited, "this run");
  for (int rank = 0; rank < launched_.world_size; ++rank) {
    RankReport r;
    r.rank = rank;
    r.end = RankReport::End::kStopped;
    if (awaited.how == Await::kPeerInterrupted &&
        awaited.value == std::to_string(rank)) {
      r.failures.push_back(
          peerInterrupted(t, rank, "before the test's body ran"));
    }
    r.stopped_because =
        interrupted + " was interrupted before the test's body ran";
    all.ranks.push_back(r);
  }
  return all;
}

LaunchedJob::Awaited LaunchedJob::awaitFrom(const std::string& key, int rank,
                                            Clock::time_point until,
                                            bool at_test_start, bool joining,
                                            bool own_key) {
  {
    const std::lock_guard<std::mutex> lock(watch_mutex_);
    watched_ = Watched{key, rank, until, at_test_start, joining, own_key};
  }
  // The responder's thread ends this wait, where the peer does not, by
  // setting the key to a mark of why (watchWaits()).
  store_->wait({key}, std::chrono::hours(24));
  {
    const std::lock_guard<std::mutex> lock(watch_mutex_);
    watched_.reset();
  }
  std::string value = get(key);
  if (value == kMarkLate) return {Await::kLate, ""};
  if (value == kMarkSilent) return {Await::kSilent, ""};
  if (value == kMarkJobGaveUp) return {Await::kJobGaveUp, ""};
  if (value.rfind(kMarkInterrupted, 0) == 0) {
    // Rank 0's: this rank's own, or rank 0's while this rank, not
    // signalled, goes on.
    if (interruptSignal() != 0) return {Await::kInterrupted, ""};
    return {Await::kPeerInterrupted,
            value.substr(std::char_traits<char>::length(kMarkInterrupted))};
  }
  return {Await::kArrived, std::move(value)};
}

LaunchedJob::Seen LaunchedJob::noteBeat(c10d::Store& store, int rank) {
  const std::int64_t beat = HeartbeatThread::beat(store, rank);
  // After the read: the count may have moved just before it.
  const auto now = Clock::now();
  const std::lock_guard<std::mutex> lock(watch_mutex_);
  Seen& seen = seen_[static_cast<std::size_t>(rank)];
  if (beat != seen.beat) seen = Seen{beat, now};
  return seen;
}

void LaunchedJob::notePeerBeats(c10d::Store& store) {
  // A store call each, so a few per poll, whatever the job's size.
  constexpr int kPeersPerPoll = 4;
  const int world = launched_.world_size;
  for (int i = 0; i < std::min(kPeersPerPoll, world - 1); ++i) {
    last_polled_ = (last_polled_ + 1) % world;
    if (last_polled_ == launched_.rank)
      last_polled_ = (last_polled_ + 1) % world;
    noteBeat(store, last_polled_);
  }
}

void LaunchedJob::watchWaits(c10d::Store& store) {
  if (supervising_) notePeerBeats(store);
  std::optional<Watched> w;
  {
    const std::lock_guard<std::mutex> lock(watch_mutex_);
    w = watched_;
  }
  if (!w) return;
  // The keys waited on in a test are shared, and the launcher of an
  // interrupted rank (another host's) may not signal the others: an
  // interrupted rank but rank 0 marks none, not even late, and its wait ends
  // with its run, from the interrupt's watchdog within kInterruptGrace
  // (interrupted_run.h). Rank 0 reports the interrupted test, so its wait
  // ends at once; so does a wait on a rank's own key (the exit code).
  if (interruptSignal() != 0 && launched_.rank != 0 && !w->own_key) return;
  std::string mark;
  const Seen seen = noteBeat(store, w->rank);
  const auto now = Clock::now();
  const bool never_beat = w->joining && seen.beat == 0;
  if (!never_beat && now - seen.since >= settings().peer_silence) {
    mark = kMarkSilent;
  }
  if (now >= w->until) mark = kMarkLate;
  if (w->at_test_start && store.check({keys::lost()})) mark = kMarkJobGaveUp;
  // The run ends 3 s after the signal; so does the job, whose end the
  // others learn from rank 0.
  if (interruptSignal() != 0) {
    mark = kMarkInterrupted + std::to_string(launched_.rank);
  }
  if (mark.empty()) return;
  // Only where the key is still unset: a value that came first stands, and
  // one that comes after the mark does not replace it (first_value.h).
  setFirst(store, w->key, toBytes(mark));
  const std::lock_guard<std::mutex> lock(watch_mutex_);
  if (watched_ && watched_->key == w->key) watched_.reset();
}

RankReport LaunchedJob::giveUpOn(int rank, Await how,
                                 const std::string& waited_for,
                                 const std::string& test) {
  RankReport missing;
  missing.rank = rank;
  missing.end = RankReport::End::kTimedOut;
  const std::string last =
      published(keys::phase(rank)).value_or("none published");
  const std::string where =
      published(keys::where(rank)).value_or("where unknown");
  const std::string who =
      "[ranktest] rank " + std::to_string(rank) + " (" + where + ")";
  const std::string later = ". Later tests fail at once";
  if (how == Await::kSilent) {
    missing.tail.push_back(
        who + " went silent while rank " + std::to_string(launched_.rank) +
        " waited for " + waited_for + ": its heartbeat has not moved for " +
        secondsText(settings().peer_silence) +
        ", so its process is stopped or its host is cut off; its last "
        "phase: " +
        last + later);
  } else {
    const std::optional<std::string> answer =
        HeartbeatThread::ask(*store_, rank, 3s);
    missing.tail.push_back(
        who + " did not send " + waited_for +
        " by the deadline; its last phase: " + last +
        (answer ? ". Asked where it is, it answered: " + *answer
                : ". Asked where it is, it did not answer within 3 s: its "
                  "process is stopped or its host is gone") +
        later);
  }
  given_up_.emplace(rank, "rank " + std::to_string(launched_.rank) +
                              " waited in vain for " + waited_for + " in " +
                              test);
  if (!lost_rank_) {
    lost_rank_ = rank;
    lost_in_ = test;
    store_->set(keys::lost(), toBytes(std::to_string(rank) + "\n" + test));
  }
  // Only rank 0 prints test reports: the others say it on their own host.
  if (launched_.rank != 0) std::cerr << missing.tail.front() << std::endl;
  return missing;
}

bool LaunchedJob::adoptLostRank() {
  if (lost_rank_) return true;
  const std::optional<std::string> lost = published(keys::lost());
  if (!lost) return false;
  const std::size_t newline = lost->find('\n');
  lost_rank_ = static_cast<int>(integerIn(lost->substr(0, newline),
                                          "the job's lost rank", 0,
                                          launched_.world_size - 1));
  lost_in_ = lost->substr(newline + 1);
  return true;
}

}  // namespace ranktest::internal
