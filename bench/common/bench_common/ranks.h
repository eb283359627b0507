#pragma once

// One process per rank for the DDP benchmarks: forked from the benchmark's
// (initialised) parent, meeting over a FileStore, reducing over Gloo on
// loopback.

#include <cstdint>
#include <functional>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

namespace bench_common {

// steady_clock, in nanoseconds.
std::int64_t nowNs();

// Forks `world_size` ranks, each running body(rank, store_path), and waits
// for them. A rank that throws prints "[<tag>] rank R: what" and fails;
// when one fails the others are killed (they would wait for it until Gloo's
// timeout). Each rank exits right after body (its group's teardown is
// nothing the benchmarks measure). Returns 0 when every rank succeeded.
int forkRanks(
    int world_size, const std::string& tag,
    const std::function<void(int rank, const std::string& store_path)>& body);

// The rank's Gloo group over the FileStore at `store_path`. Collective.
c10::intrusive_ptr<c10d::ProcessGroup> glooGroup(const std::string& store_path,
                                                 int rank, int world_size);

// Every rank's step times (the same count on each), the maximum over the
// ranks per step: a step is as slow as its slowest rank. Collective.
std::vector<double> slowestRankPerStep(
    const c10::intrusive_ptr<c10d::ProcessGroup>& group,
    const std::vector<double>& us);

}  // namespace bench_common
