#pragma once

// The rank side: builds the process group, runs fixture bodies, reports each
// gtest failure, skip and exception as it happens, and exits with the code of
// the skip-code table.

#include "ranktest/internal/rank_launch.h"

namespace ranktest::internal {

// Runs a rank (one test, or a reused worker's loop) and exits the process.
// Expects kResultFd (and kControlFd, kStoreFileFd where used) to be open.
[[noreturn]] void runRankProcess(const RankLaunch& launch);

}  // namespace ranktest::internal
