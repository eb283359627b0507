#include "bench_common/interleave.h"

#include <algorithm>

namespace bench_common {

InterleavedSteps interleaveBlocks(
    std::size_t modes, int steps, int block,
    const std::function<void(std::size_t mode, int done, int n,
                             std::vector<double>* us)>& run) {
  InterleavedSteps out{std::vector<std::vector<double>>(modes),
                       std::vector<std::vector<int>>(modes)};
  for (int round = 0, done = 0; done < steps; ++round) {
    const int n = std::min(block, steps - done);
    for (std::size_t j = 0; j < modes; ++j) {
      const std::size_t m = (round + j) % modes;
      run(m, done, n, &out.us[m]);
      out.round_of[m].insert(out.round_of[m].end(), n, round);
    }
    done += n;
  }
  return out;
}

}  // namespace bench_common
