#pragma once

// A launched rank's sentinel: a small process forked from the rank before it
// starts any thread, with a store connection of its own, that ends the rank
// once the job gave up on it, or once it has been stopped (SIGSTOP) for the
// peer silence (RANKTEST_PEER_SILENCE) plus 5 s.
// A rank whose process is stopped cannot end itself, and a launcher with one
// agent per host (torchrun) would wait for it forever; the sentinel SIGKILLs
// it and says why. It dies with the rank (PR_SET_PDEATHSIG).
// Where the rank is to serve the job's store, its sentinel serves it: the
// rank's own process forks each test, and a fork copies the locks that a
// server thread holds at that moment.

#include <chrono>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

namespace ranktest::internal {

// Forks the sentinel of this process, rank `rank` (`who` names it in its
// message), which joins the store at `host` with `options` as a client, or
// serves it where `options.isServer`: then this returns once the server
// listens, and throws its error if it cannot start. Its keys are those of
// attempt `restart_count` (attempt_store.h). Returns false, starting
// nothing, when this process already runs threads: a fork would copy their
// locks held.
bool startRankSentinel(const std::string& host,
                       const c10d::TCPStoreOptions& options, int rank,
                       const std::string& who,
                       std::optional<int> restart_count);

// Asks `rank`'s sentinel, through `store`, to end that rank, saying
// `reason`; waits up to `wait` for it to acknowledge. Returns whether it did
// (a rank without a sentinel, or whose host is cut off, does not).
bool endGivenUpRank(c10d::Store& store, int rank, const std::string& reason,
                    std::chrono::milliseconds wait);

}  // namespace ranktest::internal
