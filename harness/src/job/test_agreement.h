#pragma once

// The ranks of a launched job run their distributed tests in step: before
// each, every rank publishes the test it is at, and all must be at the same
// one. A rank started with another --gtest_filter (or another binary) is at
// another test, or has none left while the others go on.

#include <optional>
#include <string>
#include <vector>

namespace ranktest::internal {

// What a rank publishes as its next test once its run has ended.
inline constexpr char kNoMoreTests[] = "\x02ranktest: no more tests";

// Where `tests` (the test each rank is at, by rank; or kNoMoreTests) are not
// all the same: what every rank reports, the same text on each, naming what
// each rank runs as the job's distributed test number `number` (from 1).
std::optional<std::string> disagreementOn(
    int number, const std::vector<std::string>& tests);

}  // namespace ranktest::internal
