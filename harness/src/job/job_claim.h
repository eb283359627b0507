#pragma once

// Two launched jobs can reach one store: on one host without MASTER_PORT
// both derive a port from their names, and hashes collide; or a user gives
// two jobs the same MASTER_PORT. A rank of the second would then read and
// write the first's keys. Each rank therefore claims the store for its job
// before anything else: the first rank to reach it names the job there, and
// a rank of another job is refused.

#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace ranktest::internal {

// Claims `store` (at `address`) for `job` (LaunchedRank::job; "" claims
// nothing). Throws std::runtime_error naming both jobs where the store is
// another job's.
void claimStoreForJob(c10d::Store& store, const std::string& job,
                      const std::string& address);

}  // namespace ranktest::internal
