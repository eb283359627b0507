#include "verdict/verdict.h"

#include <signal.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <vector>

#include "ranktest/settings.h"
#include "verdict/alike_ranks.h"
#include "verdict/source_paths.h"

namespace ranktest::internal {
namespace {

std::string seconds(std::chrono::milliseconds ms) {
  std::ostringstream out;
  out.precision(3);
  out << static_cast<double>(ms.count()) / 1000.0 << " s";
  return out.str();
}

std::string describeEnd(const RankReport& r) {
  switch (r.end) {
    case RankReport::End::kFinished:
      if (r.skipped()) return describeSkip(*r.skip);
      if (r.code == 0) return "passed";
      return r.code == kTestErrorExitCode
                 ? "failed"
                 : "finished with unexpected code " + std::to_string(r.code);
    case RankReport::End::kExited:
      if (r.code == kRankSetupExitCode) {
        return "could not set up its file descriptors (exit code " +
               std::to_string(r.code) + "; its output says why)";
      }
      return "exited with code " + std::to_string(r.code) +
             " before its test finished" +
             (r.code == 0 ? " (exit() inside the test?)" : "");
    case RankReport::End::kSignaled:
      return "was killed by signal " + describeSignal(r.signal);
    case RankReport::End::kTimedOut:
      return "was still running at the deadline";
    case RankReport::End::kStopped:
      // Its failures came before the stop: they are its own.
      if (r.failed()) return "failed (then stopped: " + r.stopped_because + ")";
      return "was stopped because " + r.stopped_because;
  }
  return "?";
}

using Group = std::vector<const RankReport*>;

bool inGroup(const Group& group, int rank) {
  for (const RankReport* r : group) {
    if (r->rank == rank) return true;
  }
  return false;
}

// The headline of ranks that failed alike: "failed alike", or e.g.
// "failed alike: each was killed by signal SIGSEGV (Segmentation fault)".
// A member the parent stopped after its failures says nothing of its own.
std::string endedAlike(const Group& group) {
  for (const RankReport* r : group) {
    if (r->end == RankReport::End::kStopped) continue;
    const std::string end = describeEnd(*r);
    return end == "failed" ? "failed alike" : "failed alike: each " + end;
  }
  return "failed alike";
}

std::string othersLine(const SuperviseResult& result, const Group& except) {
  std::string out;
  for (const RankReport& r : result.ranks) {
    if (inGroup(except, r.rank)) continue;
    out += (out.empty() ? "" : "; ") + std::string("rank ") +
           std::to_string(r.rank) + " " + describeEnd(r);
  }
  return out;
}

// Whether the rank's errors say that a peer went away: what a rank still in
// a collective reports when another rank died or left.
bool lostPeer(const RankReport& r) {
  static const char* const kPeerGone[] = {
      "Connection reset by peer", "Connection closed by peer", "Broken pipe"};
  bool lost_peer = false;
  auto scan = [&](const std::string& text) {
    for (const char* pattern : kPeerGone) {
      lost_peer = lost_peer || text.find(pattern) != std::string::npos;
    }
  };
  for (const RankFailure& f : r.failures) scan(f.message);
  for (const RankException& e : r.exceptions) scan(e.message);
  return lost_peer;
}

// A rank that lost its peers mid-collective while some of them had already
// passed: the ranks issued different collectives (one skipped a collective,
// a backward, an iteration). The error itself only says "connection reset".
std::string peerLeftHint(const SuperviseResult& result, const Group& group) {
  const bool lost_peer = lostPeer(*group.front());
  std::string passed;
  for (const RankReport& other : result.ranks) {
    if (!inGroup(group, other.rank) && other.passed()) {
      passed += (passed.empty() ? "" : ", ") + std::to_string(other.rank);
    }
  }
  if (!lost_peer || passed.empty()) return "";
  return "  hint: rank" +
         std::string(passed.find(',') == std::string::npos ? " " : "s ") +
         passed + " passed and left while " + rankList(group) +
         (group.size() == 1 ? " was" : " were") +
         " still in a collective with it: the ranks ran different "
         "collectives (did one skip a collective, a backward or an "
         "iteration?)\n";
}

// The ranks that failed by themselves (not at the deadline), in the order
// the parent learned of it; on a tie (seen in the same poll), one whose error
// is its own before one that lost a peer.
std::vector<const RankReport*> failedInOrder(const SuperviseResult& result) {
  std::vector<const RankReport*> failed;
  for (const RankReport& r : result.ranks) {
    if (r.end != RankReport::End::kTimedOut && r.failed()) failed.push_back(&r);
  }
  using TimePoint = std::chrono::steady_clock::time_point;
  std::stable_sort(
      failed.begin(), failed.end(),
      [](const RankReport* a, const RankReport* b) {
        const TimePoint ta = a->failed_at.value_or(TimePoint::max());
        const TimePoint tb = b->failed_at.value_or(TimePoint::max());
        if (ta != tb) return ta < tb;
        return !lostPeer(*a) && lostPeer(*b);
      });
  return failed;
}

// The first line of what a rank reported first, for a collapsed entry.
std::string firstError(const RankReport& r) {
  std::string text;
  if (!r.failures.empty()) {
    const RankFailure& f = r.failures.front();
    text = f.file + ":" + std::to_string(f.line) + ": " + f.message;
  } else if (!r.exceptions.empty()) {
    text = r.exceptions.front().type + ": " + r.exceptions.front().message;
  } else {
    text = describeEnd(r);
  }
  return text.substr(0, text.find('\n'));
}

// Ranks that failed after the root cause, only because a peer went away:
// one line each.
std::string collateralSection(
    const RankReport& root, const std::vector<const RankReport*>& collateral) {
  if (collateral.empty()) return "";
  std::string out = "  collateral: failed after rank " +
                    std::to_string(root.rank) +
                    ", only because a peer closed or reset its connection:\n";
  for (const RankReport* r : collateral) {
    out += "    rank " + std::to_string(r->rank) + ": " + firstError(*r) + "\n";
  }
  return out;
}

VerdictFailure failureAt(const RunDescription& run, const RankReport* r,
                         std::string text) {
  if (r != nullptr && !r->failures.empty() && !r->failures[0].file.empty()) {
    return {r->failures[0].file, r->failures[0].line, std::move(text)};
  }
  return {run.file, run.line, std::move(text)};
}

std::string header(const RunDescription& run, const SuperviseResult& result) {
  return "  test: " + run.test + " (" + run.how + ", " +
         std::to_string(result.ranks.size()) + " ranks, " +
         seconds(result.elapsed) + ")\n" +
         (run.rerun.empty() ? "" : "  rerun: " + run.rerun + "\n");
}

}  // namespace

std::string describeSkip(const Skip& skip, const std::string& note) {
  return "skipped (code " + std::to_string(static_cast<int>(skip.code)) +
         (note.empty() ? "" : ", " + note) + "): " + skip.message;
}

std::string describeSignal(int signal_number) {
  const char* abbrev = sigabbrev_np(signal_number);
  const char* text = sigdescr_np(signal_number);
  return std::string(abbrev ? std::string("SIG") + abbrev
                            : "signal " + std::to_string(signal_number)) +
         " (" + (text ? text : "unknown") + ")";
}

namespace {

// "rank R of W" or "ranks R, S of W", and where each ran when ranks span
// hosts: "rank 1 of 2 (host h1, pid 42)".
std::string rankOf(const Group& group, int world) {
  std::string where;
  for (const RankReport* r : group) {
    if (!r->where.empty()) where += (where.empty() ? "" : "; ") + r->where;
  }
  return rankList(group) + " of " + std::to_string(world) +
         (where.empty() ? "" : " (" + where + ")");
}

// "rank 1 of 2 was still running:", or for alike ranks "ranks 0, 1 of 2
// were still running, alike:".
std::string stillRunning(const Group& group, int world) {
  return rankOf(group, world) + (group.size() == 1
                                     ? " was still running:\n"
                                     : " were still running, alike:\n");
}

// The ranks stopped after they printed their stacks, as the parent asks them
// to when a rank crashed: what each was in then (its stack and hang notes,
// e.g. the hook and bucket of the collective the crashed rank's met).
std::string stoppedWithStacks(const SuperviseResult& result, int world) {
  Group stopped;
  for (const RankReport& r : result.ranks) {
    if (r.end == RankReport::End::kStopped && !r.failed() && !r.stack.empty()) {
      stopped.push_back(&r);
    }
  }
  std::string out;
  for (const Group& group : groupAlike(stopped)) {
    out += rankOf(group, world) + (group.size() == 1 ? " was" : " were") +
           " stopped because " + group.front()->stopped_because +
           (group.size() == 1 ? ":\n" : ", alike:\n") +
           groupDetails(group, !settings().verbose);
  }
  return out;
}

// The ranks of `result` that `pick` selects, grouped alike, each group
// headed as still running.
template <typename Pick>
std::string stillRunningGroups(const SuperviseResult& result, Pick pick) {
  const int world = static_cast<int>(result.ranks.size());
  Group running;
  for (const RankReport& r : result.ranks) {
    if (pick(r)) running.push_back(&r);
  }
  std::string text;
  for (const Group& group : groupAlike(running)) {
    text +=
        stillRunning(group, world) + groupDetails(group, !settings().verbose);
  }
  return text;
}

std::string interruptedText(const RunDescription& run,
                            const SuperviseResult& result) {
  return "[ranktest] interrupted by " + describeSignal(result.interrupted_by) +
         " after " + seconds(result.elapsed) +
         ": the ranks were stopped; the tests after this one do not run\n" +
         header(run, result) +
         stillRunningGroups(result, [](const RankReport& r) {
           return r.end == RankReport::End::kStopped && !r.failed();
         });
}

std::string timedOutText(const RunDescription& run,
                         const SuperviseResult& result) {
  std::string still;
  for (const RankReport& r : result.ranks) {
    if (r.end == RankReport::End::kTimedOut) {
      still += (still.empty() ? "" : ", ") + std::to_string(r.rank);
    }
  }
  const std::string ranks =
      std::string("rank") +
      (still.find(',') == std::string::npos ? " " : "s ") + still;
  // Under a launcher the job gives up on a silent rank (stopped, or its
  // host cut off) before the deadline: no time ran out.
  const std::string headline =
      result.elapsed < run.timeout
          ? "[ranktest] the job gave up on " + ranks + " after " +
                seconds(result.elapsed) + ", before the deadline (" +
                seconds(run.timeout) + "): silent, not finished\n"
          : "[ranktest] timed out after " + seconds(result.elapsed) +
                " (deadline " + seconds(run.timeout) +
                "); still running: " + ranks + "\n";
  return headline + header(run, result) +
         stillRunningGroups(result, [](const RankReport& r) {
           return r.end == RankReport::End::kTimedOut;
         });
}

// Root cause first: the first rank to fail, in full, with the ranks that
// failed after it only because a peer went away collapsed below it; any
// other rank that failed on its own follows in full. Ranks that failed
// alike (alike_ranks.h) share one report, where the first of them stands.
void addRankFailures(const RunDescription& run, const SuperviseResult& result,
                     Verdict& verdict) {
  const int world = static_cast<int>(result.ranks.size());
  const std::vector<const RankReport*> failed = failedInOrder(result);
  std::vector<const RankReport*> collateral;
  Group own;
  for (std::size_t i = 0; i < failed.size(); ++i) {
    if (i > 0 && lostPeer(*failed[i])) {
      collateral.push_back(failed[i]);
    } else {
      own.push_back(failed[i]);
    }
  }
  for (const Group& group : groupAlike(own)) {
    const RankReport& r = *group.front();
    const bool root = &r == failed.front();
    std::string role;
    if (root && failed.size() > group.size()) {
      role = ", the first to fail (root cause)";
    }
    if (!root) role = ", after rank " + std::to_string(failed[0]->rank);
    const std::string others = othersLine(result, group);
    std::string text =
        "[ranktest] " + rankOf(group, world) + " " +
        (group.size() == 1 ? describeEnd(r) : endedAlike(group)) + role + "\n" +
        header(run, result) +
        (others.empty() ? "" : "  other ranks: " + others + "\n") +
        peerLeftHint(result, group) + groupDetails(group, !settings().verbose) +
        (root ? collateralSection(r, collateral) +
                    stoppedWithStacks(result, world)
              : "");
    verdict.kind = Verdict::Kind::kFailed;
    verdict.failures.push_back(failureAt(run, &r, text));
  }
}

// Where no rank failed: every rank skipped alike (the test is skipped), or
// some skipped and others did not (a failure: they disagree).
void judgeSkips(const RunDescription& run, const SuperviseResult& result,
                Verdict& verdict) {
  std::size_t skipped = 0;
  for (const RankReport& r : result.ranks) skipped += r.skipped() ? 1 : 0;
  if (skipped == 0) return;
  const RankReport& first = result.ranks.front();
  bool alike = skipped == result.ranks.size();
  for (const RankReport& r : result.ranks) {
    alike = alike && r.skip->code == first.skip->code &&
            r.skip->message == first.skip->message;
  }
  if (alike) {
    verdict.kind = Verdict::Kind::kSkipped;
    verdict.skip_message = describeSkip(*first.skip) + " [all " +
                           std::to_string(result.ranks.size()) + " ranks]";
    return;
  }
  verdict.kind = Verdict::Kind::kFailed;
  verdict.failures.push_back(failureAt(
      run, nullptr,
      "[ranktest] ranks disagree on skipping: " + othersLine(result, {}) +
          "\n" + header(run, result)));
}

Verdict judgeRanks(const RunDescription& run, const SuperviseResult& result) {
  Verdict verdict;
  if (result.interrupted_by != 0) {
    verdict.kind = Verdict::Kind::kFailed;
    verdict.failures.push_back(
        failureAt(run, nullptr, interruptedText(run, result)));
  }
  if (result.timed_out) {
    verdict.kind = Verdict::Kind::kFailed;
    verdict.failures.push_back(
        failureAt(run, nullptr, timedOutText(run, result)));
  }
  addRankFailures(run, result, verdict);
  if (verdict.kind != Verdict::Kind::kFailed) judgeSkips(run, result, verdict);
  return verdict;
}

}  // namespace

Verdict judge(const RunDescription& run, const SuperviseResult& result) {
  Verdict verdict = judgeRanks(run, result);
  // Where the report shows ranktest's own files; the failures' locations
  // stay as gtest and IDEs use them.
  for (VerdictFailure& failure : verdict.failures) {
    failure.text = relativeToSourceTree(failure.text);
  }
  verdict.skip_message = relativeToSourceTree(verdict.skip_message);
  return verdict;
}

}  // namespace ranktest::internal
