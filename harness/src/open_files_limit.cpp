#include "ranktest/internal/open_files_limit.h"

#include <sys/resource.h>

#include <stdexcept>
#include <string>

namespace ranktest::internal {

unsigned long openFilesNeeded(int world_size) {
  // Measured lowest limits that pass (Gloo, TCP store, spawned ranks: the
  // most descriptors): 26 at 2 ranks, 32 at 3, 36 at 4; about 16 + 5 per
  // rank, in the rank (a socket per peer) and in the parent (pipes, a pidfd
  // and a store connection per rank). Below, c10d fails far from the cause:
  // the TCP store's server thread aborts the parent on EMFILE.
  return 24 + 6 * static_cast<unsigned long>(world_size);
}

void checkOpenFilesLimit(int world_size) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const unsigned long needed = openFilesNeeded(world_size);
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= needed) return;
  throw std::runtime_error(
      "ranktest: RLIMIT_NOFILE is " + std::to_string(limit.rlim_cur) +
      ", but a test of " + std::to_string(world_size) +
      " ranks needs at least " + std::to_string(needed) +
      " open files in the parent and in each rank; raise the limit (e.g. "
      "ulimit -n " +
      std::to_string(kSuggestedOpenFilesLimit) + ") before running the tests");
}

}  // namespace ranktest::internal
