#pragma once

// Timing several modes of one cell side by side: the timed steps run in
// blocks, a round runs one block of every mode, and the order rotates from
// round to round, so that the machine's noise falls on all modes alike.

#include <cstddef>
#include <functional>
#include <vector>

namespace bench_common {

struct InterleavedSteps {
  std::vector<std::vector<double>> us;     // per mode, each step's time
  std::vector<std::vector<int>> round_of;  // per mode, each step's round
};

// `steps` timed steps of each of `modes` modes in blocks of `block`:
// run(mode, done, n, us) runs n steps of `mode` (its steps done so far:
// `done`) and appends their times to `us`.
InterleavedSteps interleaveBlocks(
    std::size_t modes, int steps, int block,
    const std::function<void(std::size_t mode, int done, int n,
                             std::vector<double>* us)>& run);

}  // namespace bench_common
