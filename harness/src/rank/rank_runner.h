#pragma once

// The rank side: builds the process group, runs fixture (or runRanks) bodies,
// reports each gtest failure, skip and exception as it happens, and exits with
// the code of the skip-code table.

#include <functional>

#include "ranktest/run_ranks.h"
#include "wire/rank_launch.h"

namespace ranktest::internal {

// Runs a rank (one test, or a reused worker's loop) and exits the process.
// Expects kResultFd (and kControlFd, kStoreFileFd where used) to be open.
[[noreturn]] void runRankProcess(const RankLaunch& launch);

// Runs `body` as this rank's one test (a forked runRanks rank) and exits.
[[noreturn]] void runRankBody(const RankLaunch& launch,
                              const std::function<void(const Rank&)>& body);

}  // namespace ranktest::internal
