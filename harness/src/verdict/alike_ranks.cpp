#include "verdict/alike_ranks.h"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <utility>

#include "rank/rank_signals.h"
#include "ranktest/skip_codes.h"
#include "verdict/stack_folding.h"

namespace ranktest::internal {
namespace {

// A stack line as it would read in any rank: the begin marker without its
// rank and pid, a frame without backtrace_symbols' absolute address.
std::string normalized(const std::string& line) {
  if (line.rfind(kStackBeginMarker, 0) == 0) {
    const std::size_t pid = line.find("(pid ");
    const std::size_t after = line.find_first_of(",)", pid);
    return after == std::string::npos ? "" : line.substr(after);
  }
  const std::size_t address = line.rfind("[0x");
  if (address != std::string::npos && !line.empty() && line.back() == ']') {
    return line.substr(0, address);
  }
  return line;
}

bool sameStack(const std::vector<std::string>& a,
               const std::vector<std::string>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (normalized(a[i]) != normalized(b[i])) return false;
  }
  return true;
}

// How the rank ended, as far as it is the rank's own doing: a rank stopped
// by the parent after it had reported its failures (because another rank
// failed first) failed as a finished one did.
std::pair<RankReport::End, int> ownEnd(const RankReport& r) {
  if (r.end == RankReport::End::kStopped) {
    return {RankReport::End::kFinished, kTestErrorExitCode};
  }
  return {r.end, r.end == RankReport::End::kSignaled ? r.signal : r.code};
}

// `text` with each whole-word "rank <own>" masked: a rank's failure text
// often names the rank itself ("hook 'topk' on rank 1 threw"), and ranks
// that failed alike say so each of itself. Another number, e.g. a peer's,
// stays and keeps reports apart.
std::string withoutOwnRank(const std::string& text, int own) {
  const std::string word = "rank " + std::to_string(own);
  auto identifier = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = text.find(word); at != std::string::npos;
       at = text.find(word, at + 1)) {
    const std::size_t end = at + word.size();
    if ((at > 0 && identifier(text[at - 1])) ||
        (end < text.size() && identifier(text[end]))) {
      continue;
    }
    // A control character no report text has stands for the number.
    out += text.substr(from, at - from) + "rank \x1f";
    from = end;
  }
  return out + text.substr(from);
}

bool sameText(const std::string& a, const RankReport& ra, const std::string& b,
              const RankReport& rb) {
  return a == b || withoutOwnRank(a, ra.rank) == withoutOwnRank(b, rb.rank);
}

// Whether a member of the group said the same in other words than the
// first: alike only once each one's own rank number is masked.
bool wordedAlike(const RankReport& first, const RankReport& r) {
  for (std::size_t i = 0; i < first.failures.size(); ++i) {
    if (first.failures[i].message != r.failures[i].message) return true;
  }
  for (std::size_t i = 0; i < first.exceptions.size(); ++i) {
    if (first.exceptions[i].message != r.exceptions[i].message) return true;
  }
  return false;
}

std::string indent(const std::string& text, const std::string& pad) {
  std::string out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) out += pad + line + "\n";
  return out;
}

// The last lines of the ranks' output (already "[rank N] "-prefixed), each
// distinct one once.
std::string outputSection(const std::vector<const RankReport*>& group) {
  auto unprefixed = [](const RankReport& r) {
    std::deque<std::string> lines = r.tail;
    const std::string prefix = "[rank " + std::to_string(r.rank) + "] ";
    for (std::string& line : lines) {
      if (line.rfind(prefix, 0) == 0) line.erase(0, prefix.size());
    }
    return lines;
  };
  using Group = std::vector<const RankReport*>;
  std::vector<Group> same;
  for (const RankReport* r : group) {
    auto it = std::find_if(same.begin(), same.end(), [&](const Group& g) {
      return unprefixed(*g.front()) == unprefixed(*r);
    });
    if (it == same.end()) {
      same.push_back({r});
    } else {
      it->push_back(r);
    }
  }
  std::string out;
  for (const Group& g : same) {
    const RankReport& r = *g.front();
    if (r.tail.empty()) {
      out += "  " + rankList(g) + " printed nothing\n";
      continue;
    }
    const Group rest(g.begin() + 1, g.end());
    out += "  output of rank " + std::to_string(r.rank) + " (last " +
           std::to_string(r.tail.size()) + " lines" +
           (rest.empty() ? "" : "; " + rankList(rest) + " printed the same") +
           "):\n";
    for (const std::string& line : r.tail) out += "    " + line + "\n";
  }
  return out;
}

}  // namespace

std::string groupDetails(const std::vector<const RankReport*>& group,
                         bool fold_stacks) {
  const RankReport& r = *group.front();
  std::string out;
  std::vector<const RankReport*> reworded;
  for (const RankReport* other : group) {
    if (wordedAlike(r, *other)) reworded.push_back(other);
  }
  if (!reworded.empty()) {
    // The text below names rank r; the others named themselves instead.
    out += "  as rank " + std::to_string(r.rank) + " reported it (" +
           rankList(reworded) + ": the same, " +
           (reworded.size() == 1 ? "with its" : "each with its") +
           " own rank number)\n";
  }
  for (const RankFailure& f : r.failures) {
    out += "  gtest failure at " + f.file + ":" + std::to_string(f.line) +
           ":\n" + indent(f.message, "    ");
  }
  for (const RankException& e : r.exceptions) {
    out += "  uncaught exception " + e.type + ":\n" + indent(e.message, "    ");
  }
  if (!r.stack.empty()) {
    out += "  stack:\n";
    const std::vector<std::string> stack =
        fold_stacks ? foldLibraryFrames(r.stack) : r.stack;
    for (const std::string& line : stack) out += "    " + line + "\n";
  }
  return out + outputSection(group);
}

bool reportsAlike(const RankReport& a, const RankReport& b) {
  if (ownEnd(a) != ownEnd(b) || a.failures.size() != b.failures.size() ||
      a.exceptions.size() != b.exceptions.size() ||
      a.skip.has_value() != b.skip.has_value()) {
    return false;
  }
  for (std::size_t i = 0; i < a.failures.size(); ++i) {
    const RankFailure& x = a.failures[i];
    const RankFailure& y = b.failures[i];
    if (x.file != y.file || x.line != y.line ||
        !sameText(x.message, a, y.message, b)) {
      return false;
    }
  }
  for (std::size_t i = 0; i < a.exceptions.size(); ++i) {
    if (a.exceptions[i].type != b.exceptions[i].type ||
        !sameText(a.exceptions[i].message, a, b.exceptions[i].message, b)) {
      return false;
    }
  }
  if (a.skip && (a.skip->code != b.skip->code ||
                 !sameText(a.skip->message, a, b.skip->message, b))) {
    return false;
  }
  return sameStack(a.stack, b.stack);
}

std::vector<std::vector<const RankReport*>> groupAlike(
    const std::vector<const RankReport*>& ranks) {
  std::vector<std::vector<const RankReport*>> groups;
  for (const RankReport* r : ranks) {
    bool placed = false;
    for (auto& group : groups) {
      if (reportsAlike(*group.front(), *r)) {
        group.push_back(r);
        placed = true;
        break;
      }
    }
    if (!placed) groups.push_back({r});
  }
  return groups;
}

std::string rankList(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  std::string out = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    out += (i == 0 ? "" : ", ") + std::to_string(ranks[i]);
  }
  return out;
}

std::string rankList(const std::vector<const RankReport*>& group) {
  std::vector<int> ranks;
  ranks.reserve(group.size());
  for (const RankReport* r : group) ranks.push_back(r->rank);
  return rankList(std::move(ranks));
}

}  // namespace ranktest::internal
