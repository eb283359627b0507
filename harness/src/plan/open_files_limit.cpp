#include "plan/open_files_limit.h"

#include <sys/resource.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

#include "wire/check.h"

namespace ranktest::internal {

unsigned long openFilesNeeded(int world_size, bool reused_on_tcp) {
  // Measured lowest limits that pass (Gloo, 8 ranks: 74 on libtorch 1.13
  // and 2.11, whatever the start method and store), about 26 + 6 per rank,
  // in the rank (a socket per peer) and in the parent (pipes, a pidfd and a
  // store connection per rank). Reused ranks on the TCP store hold more in
  // the parent (a control pipe, connections kept across tests): 98 at 8
  // ranks on 1.13, 74 on 2.11. Below, c10d fails far from the cause: the
  // TCP store's server thread aborts the parent on EMFILE.
  const unsigned long per_rank = reused_on_tcp ? 10 : 6;
  return 26 + per_rank * static_cast<unsigned long>(world_size);
}

bool descriptorsToSpare(unsigned long needed) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 ||
      limit.rlim_cur == RLIM_INFINITY) {
    return true;
  }
  std::error_code error;
  unsigned long open = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", error), end;
       !error && it != end; it.increment(error)) {
    ++open;
  }
  return error || open + needed <= limit.rlim_cur;
}

void checkOpenFilesLimit(int world_size, bool reused_on_tcp) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) return;
  const unsigned long needed = openFilesNeeded(world_size, reused_on_tcp);
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= needed) return;
  RANKTEST_FAIL(
      "ranktest: RLIMIT_NOFILE is " + std::to_string(limit.rlim_cur) +
      ", but a test of " + std::to_string(world_size) +
      " ranks needs at least " + std::to_string(needed) +
      " open files in the parent and in each rank; raise the limit (e.g. "
      "ulimit -n " +
      std::to_string(kSuggestedOpenFilesLimit) + ") before running the tests");
}

}  // namespace ranktest::internal
