#pragma once

// Uneven inputs for the join suites: how many inputs each rank gets, and what
// a counting joinable must report for them.

#include <algorithm>
#include <vector>

namespace join_suite {

// Rank r's inputs: `base` plus a per-rank offset (at world size 2: base and
// base + 1, the tutorial's 5 and 6).
inline int inputsOf(int rank, int world_size, int base = 5) {
  static const std::vector<std::vector<int>> kOffsets = {
      {0}, {0, 1}, {0, 3, 1}, {2, 0, 3, 1}};
  return base + kOffsets.at(world_size - 1).at(rank);
}

// Ranks still training at iteration `i`.
inline int trainingAt(int i, int world_size, int base = 5) {
  int n = 0;
  for (int r = 0; r < world_size; ++r) n += inputsOf(r, world_size, base) > i;
  return n;
}

// What the tutorial's Counter counts on `rank`: at each of its iterations,
// the ranks still training.
inline int countOf(int rank, int world_size, int base = 5) {
  int count = 0;
  for (int i = 0; i < inputsOf(rank, world_size, base); ++i) {
    count += trainingAt(i, world_size, base);
  }
  return count;
}

inline int maxInputs(int world_size, int base = 5) {
  int most = 0;
  for (int r = 0; r < world_size; ++r) {
    most = std::max(most, inputsOf(r, world_size, base));
  }
  return most;
}

}  // namespace join_suite
