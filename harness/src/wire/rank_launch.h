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
  // This rank's node under a launcher; unset: every rank on one host, so the
  // local rank is the rank, the node's size the world's, the node 0.
  std::optional<int> local_rank;
  std::optional<int> local_world_size;
  std::optional<int> node_rank;
  std::string backend = "gloo";
  // "file" (the store file is open at kStoreFileFd), "tcp:<port>" on
  // loopback or "tcp:<host>:<port>".
  std::string store = "file";
  // Prepended to every key of the test's store ("" for none): ranks of a
  // launched job share one store across tests.
  std::string store_prefix;
  // The address this rank's Gloo listens on.
  std::string gloo_host = "127.0.0.1";
  std::chrono::milliseconds timeout{60000};
  // One test to run, by full name; empty for a reused worker, which reads
  // kRun records from kControlFd until end of file.
  std::string test;
  bool debug_wait = false;
  // runRanks() bodies only: a fixture test's rank reads its own options.
  bool check_collectives = false;
};

std::string encodeRankLaunch(const RankLaunch& launch);
// Throws std::invalid_argument on a malformed flag value.
RankLaunch decodeRankLaunch(const std::string& value);

}  // namespace ranktest::internal
