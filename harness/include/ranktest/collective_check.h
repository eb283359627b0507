#pragma once

// The collective-mismatch check: a process group wrapped in c10d's own
// ProcessGroupWrapper, as PyTorch does under TORCH_DISTRIBUTED_DEBUG=DETAIL.
// Before each collective the ranks meet in a barrier and compare op, tensor
// count, dtypes, devices and shapes over a side Gloo group; a mismatch throws
// c10::Error in every rank, naming this rank's collective and another rank's
// ("Detected mismatch between collectives on ranks. Rank 0 is running
// collective: CollectiveFingerPrint(OpType=ALLREDUCE, TensorShape=[2], ...),
// but Rank 1 is running collective: ...OpType=BROADCAST..."), instead of
// hanging. Tests ask for it with the checkCollectives() trait or
// RANKTEST_CHECK_COLLECTIVES=1, and get pg() wrapped; call this for groups
// of your own.
//
// Example:
//   auto checked = ranktest::withCollectiveCheck(
//       subgroup, c10::make_intrusive<c10d::PrefixStore>("sub", store()),
//       std::chrono::seconds(60));

#include <chrono>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace ranktest {

// `pg` wrapped. The side group is built on `store` under the prefix
// "collective-check", so every rank of `pg` calls this, at the same point;
// it lives as long as the wrapper, waits at most `timeout` and listens on
// `host` (an address of this rank's host that the other ranks reach).
c10::intrusive_ptr<c10d::ProcessGroup> withCollectiveCheck(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const c10::intrusive_ptr<c10d::Store>& store,
    std::chrono::milliseconds timeout, const std::string& host = "127.0.0.1");

}  // namespace ranktest
