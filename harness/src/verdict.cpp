#include "ranktest/internal/verdict.h"

#include <signal.h>
#include <string.h>

#include <algorithm>
#include <chrono>
#include <sstream>
#include <vector>

namespace ranktest::internal {
namespace {

std::string seconds(std::chrono::milliseconds ms) {
  std::ostringstream out;
  out.precision(3);
  out << static_cast<double>(ms.count()) / 1000.0 << " s";
  return out.str();
}

std::string indent(const std::string& text, const std::string& pad) {
  std::string out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) out += pad + line + "\n";
  return out;
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
      return "was stopped because " + r.stopped_because;
  }
  return "?";
}

std::string othersLine(const SuperviseResult& result, int except_rank) {
  std::string out;
  for (const RankReport& r : result.ranks) {
    if (r.rank == except_rank) continue;
    out += (out.empty() ? "" : "; ") + std::string("rank ") +
           std::to_string(r.rank) + " " + describeEnd(r);
  }
  return out;
}

std::string rankDetails(const RankReport& r) {
  std::string out;
  for (const RankFailure& f : r.failures) {
    out += "  gtest failure at " + f.file + ":" + std::to_string(f.line) +
           ":\n" + indent(f.message, "    ");
  }
  for (const RankException& e : r.exceptions) {
    out += "  uncaught exception " + e.type + ":\n" + indent(e.message, "    ");
  }
  if (!r.stack.empty()) {
    out += "  stack:\n";
    for (const std::string& line : r.stack) out += "    " + line + "\n";
  }
  if (!r.tail.empty()) {
    out += "  output of rank " + std::to_string(r.rank) + " (last " +
           std::to_string(r.tail.size()) + " lines):\n";
    for (const std::string& line : r.tail) out += "    " + line + "\n";
  } else {
    out += "  rank " + std::to_string(r.rank) + " printed nothing\n";
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
std::string peerLeftHint(const SuperviseResult& result, const RankReport& r) {
  const bool lost_peer = lostPeer(r);
  std::string passed;
  for (const RankReport& other : result.ranks) {
    if (other.rank != r.rank && other.passed()) {
      passed += (passed.empty() ? "" : ", ") + std::to_string(other.rank);
    }
  }
  if (!lost_peer || passed.empty()) return "";
  return "  hint: rank" +
         std::string(passed.find(',') == std::string::npos ? " " : "s ") +
         passed + " passed and left while rank " + std::to_string(r.rank) +
         " was still in a collective with it: the ranks ran different "
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

// "rank R of W", and where it ran when ranks span hosts.
std::string rankOf(const RankReport& r, int world) {
  return "rank " + std::to_string(r.rank) + " of " + std::to_string(world) +
         (r.where.empty() ? "" : " (" + r.where + ")");
}

}  // namespace

Verdict judge(const RunDescription& run, const SuperviseResult& result) {
  Verdict verdict;
  const int world = static_cast<int>(result.ranks.size());
  if (result.interrupted_by != 0) {
    std::string text = "[ranktest] interrupted by " +
                       describeSignal(result.interrupted_by) + " after " +
                       seconds(result.elapsed) +
                       ": the ranks were stopped; the tests after this one "
                       "do not run\n" +
                       header(run, result);
    for (const RankReport& r : result.ranks) {
      if (r.end != RankReport::End::kStopped || r.failed()) continue;
      text += rankOf(r, world) + " was still running:\n" + rankDetails(r);
    }
    verdict.kind = Verdict::Kind::kFailed;
    verdict.failures.push_back(failureAt(run, nullptr, text));
  }
  if (result.timed_out) {
    std::string still;
    for (const RankReport& r : result.ranks) {
      if (r.end == RankReport::End::kTimedOut) {
        still += (still.empty() ? "" : ", ") + std::to_string(r.rank);
      }
    }
    std::string text = "[ranktest] timed out after " + seconds(result.elapsed) +
                       " (deadline " + seconds(run.timeout) +
                       "); still running: rank" +
                       (still.find(',') == std::string::npos ? " " : "s ") +
                       still + "\n" + header(run, result);
    for (const RankReport& r : result.ranks) {
      if (r.end != RankReport::End::kTimedOut) continue;
      text += rankOf(r, world) + " was still running:\n" + rankDetails(r);
    }
    verdict.kind = Verdict::Kind::kFailed;
    verdict.failures.push_back(failureAt(run, nullptr, text));
  }
  // Root cause first: the first rank to fail, in full, with the ranks that
  // failed after it only because a peer went away collapsed below it; any
  // other rank that failed on its own follows in full.
  const std::vector<const RankReport*> failed = failedInOrder(result);
  std::vector<const RankReport*> collateral;
  for (std::size_t i = 1; i < failed.size(); ++i) {
    if (lostPeer(*failed[i])) collateral.push_back(failed[i]);
  }
  for (std::size_t i = 0; i < failed.size(); ++i) {
    const RankReport& r = *failed[i];
    if (i > 0 && lostPeer(r)) continue;
    std::string role;
    if (i == 0 && failed.size() > 1) role = ", the first to fail (root cause)";
    if (i > 0) role = ", after rank " + std::to_string(failed[0]->rank);
    std::string text = "[ranktest] " + rankOf(r, world) + " " + describeEnd(r) +
                       role + "\n" + header(run, result) +
                       "  other ranks: " + othersLine(result, r.rank) + "\n" +
                       peerLeftHint(result, r) + rankDetails(r) +
                       (i == 0 ? collateralSection(r, collateral) : "");
    verdict.kind = Verdict::Kind::kFailed;
    verdict.failures.push_back(failureAt(run, &r, text));
  }
  if (verdict.kind == Verdict::Kind::kFailed) return verdict;

  std::size_t skipped = 0;
  for (const RankReport& r : result.ranks) skipped += r.skipped() ? 1 : 0;
  if (skipped == 0) return verdict;
  const RankReport& first = result.ranks.front();
  bool alike = skipped == result.ranks.size();
  for (const RankReport& r : result.ranks) {
    alike = alike && r.skip->code == first.skip->code &&
            r.skip->message == first.skip->message;
  }
  if (alike) {
    verdict.kind = Verdict::Kind::kSkipped;
    verdict.skip_message = describeSkip(*first.skip) + " [all " +
                           std::to_string(world) + " ranks]";
    return verdict;
  }
  std::string text =
      "[ranktest] ranks disagree on skipping: " + othersLine(result, -1) +
      "\n" + header(run, result);
  verdict.kind = Verdict::Kind::kFailed;
  verdict.failures.push_back(failureAt(run, nullptr, text));
  return verdict;
}

}  // namespace ranktest::internal
