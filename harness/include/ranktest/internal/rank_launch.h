#pragma once

// Everything a rank process needs to start, passed in memory to a forked rank
// and as one internal flag to a spawned one.

#include <chrono>
#include <optional>
#include <string>

namespace ranktest::internal {

// File descriptors a rank finds open at these numbers.
inline constexpr int kResultFd = 3;     // records to the parent
inline constexpr int kControlFd = 4;    // reused workers: commands
inline constexpr int kStoreFileFd = 5;  // the FileStore's unlinked file

// The internal flag that makes a process a rank ("Am I a rank?").
inline constexpr char kRankFlag[] = "--ranktest_internal_rank=";
// Set in a spawned rank's environment, to catch a main without ranktest::init.
inline constexpr char kSpawnedEnv[] = "RANKTEST_INTERNAL_SPAWNED";

struct RankLaunch {
  int rank = 0;
  int world_size = 0;
  std::string backend = "gloo";
  // "file" (the store file is open at kStoreFileFd) or "tcp:<port>".
  std::string store = "file";
  std::chrono::milliseconds timeout{60000};
  // One test to run, by full name; empty for a reused worker, which reads
  // kRun records from kControlFd until end of file.
  std::string test;
  bool debug_wait = false;
};

std::string encodeRankLaunch(const RankLaunch& launch);
// Throws std::invalid_argument on a malformed flag value.
RankLaunch decodeRankLaunch(const std::string& value);

}  // namespace ranktest::internal
