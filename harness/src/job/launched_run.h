#pragma once

// How one launched rank's googletest run takes part in its job:
// - a plain (non-distributed) test runs once, in rank 0; the other ranks
//   skip it as it starts, so that every rank sees the same selection (the
//   user's --gtest_filter, which reports quote, and the same shards);
// - the job's end is agreed inside the run's last test, before googletest
//   writes the XML, so that what rank 0 learns only then (ranks found at
//   different tests after its run had ended, a rank given up on at the end)
//   fails that test, in rank 0's XML and summary, not only its exit code.

namespace ranktest::internal {

class LaunchedJob;

// Installs the listener that does both. After InitGoogleTest.
void takePartInTheJob(LaunchedJob& job);

}  // namespace ranktest::internal
