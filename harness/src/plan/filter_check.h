#pragma once

// Every positive pattern of a --gtest_filter must match a test of the binary:
// in a filter of several patterns, one typo would otherwise pass silently
// (googletest only runs fewer tests). Negative patterns need not match.

#include <string>
#include <vector>

namespace ranktest::internal {

// A positive pattern that matches no test, and a likelier one, if any.
struct UnmatchedPattern {
  std::string pattern;
  std::string suggestion;  // "Suite.Name/*" for "Suite.Name"; else ""
};

// googletest's wildcard match of a whole name: `*` any string, `?` one char.
bool matchesPattern(const std::string& pattern, const std::string& name);

// The positive patterns of `filter` (googletest's POSITIVE[-NEGATIVE], each
// part `:`-separated) that match none of `test_names` ("Suite.Name"), in the
// filter's order. An empty positive part means `*`.
std::vector<UnmatchedPattern> unmatchedPatterns(
    const std::string& filter, const std::vector<std::string>& test_names);

// Whether `filter` selects any of `test_names`, as googletest decides.
bool selectsAny(const std::string& filter,
                const std::vector<std::string>& test_names);

// The error, one line per pattern, e.g.
// "[ranktest] --gtest_filter pattern 'Join.Uneven' matches no test of this
// binary: did you mean Join.Uneven/*? (see --gtest_list_tests)".
std::string describeUnmatched(const std::vector<UnmatchedPattern>& unmatched);

}  // namespace ranktest::internal
