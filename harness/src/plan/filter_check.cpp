#include "plan/filter_check.h"

#include <sstream>

namespace ranktest::internal {
namespace {

bool matchesAny(const std::string& pattern,
                const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (matchesPattern(pattern, name)) return true;
  }
  return false;
}

bool matchesAny(const std::vector<std::string>& patterns,
                const std::string& name) {
  for (const std::string& pattern : patterns) {
    if (matchesPattern(pattern, name)) return true;
  }
  return false;
}

// The `:`-separated patterns of one part of a filter.
std::vector<std::string> split(const std::string& part) {
  std::vector<std::string> patterns;
  std::istringstream in(part);
  std::string pattern;
  while (std::getline(in, pattern, ':')) patterns.push_back(pattern);
  return patterns;
}

std::string positivePart(const std::string& filter) {
  const std::string positive = filter.substr(0, filter.find('-'));
  return positive.empty() ? "*" : positive;
}

}  // namespace

bool matchesPattern(const std::string& pattern, const std::string& name) {
  // Iterative glob match; `star` is where the last `*` may grow from.
  std::size_t p = 0, n = 0;
  std::size_t star = std::string::npos, star_n = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      ++p;
      ++n;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      star_n = n;
    } else if (star != std::string::npos) {
      p = star + 1;
      n = ++star_n;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::vector<UnmatchedPattern> unmatchedPatterns(
    const std::string& filter, const std::vector<std::string>& test_names) {
  std::vector<UnmatchedPattern> unmatched;
  for (const std::string& pattern : split(positivePart(filter))) {
    // An empty pattern (a doubled ':') selects nothing and names nothing.
    if (pattern.empty() || matchesAny(pattern, test_names)) continue;
    const std::string instances = pattern + "/*";
    unmatched.push_back(
        {pattern, matchesAny(instances, test_names) ? instances : ""});
  }
  return unmatched;
}

bool selectsAny(const std::string& filter,
                const std::vector<std::string>& test_names) {
  const std::vector<std::string> positive = split(positivePart(filter));
  const std::size_t dash = filter.find('-');
  const std::vector<std::string> negative =
      dash == std::string::npos ? std::vector<std::string>{}
                                : split(filter.substr(dash + 1));
  for (const std::string& name : test_names) {
    if (matchesAny(positive, name) && !matchesAny(negative, name)) return true;
  }
  return false;
}

std::string describeUnmatched(const std::vector<UnmatchedPattern>& unmatched) {
  std::string out;
  for (const UnmatchedPattern& u : unmatched) {
    out +=
        "[ranktest] --gtest_filter pattern '" + u.pattern +
        "' matches no test of this binary" +
        (u.suggestion.empty() ? "" : ": did you mean " + u.suggestion + "?") +
        " (see --gtest_list_tests)\n";
  }
  return out;
}

}  // namespace ranktest::internal
