#pragma once

// RLIMIT_NOFILE, checked in the parent before any rank starts: below what a
// test needs, ranks fail in ways far from the cause (a Gloo or store socket
// that cannot be opened, a peer waiting for it until the deadline), so the
// test fails at once with the limit and the remedy instead.

namespace ranktest::internal {

// What the messages suggest (`ulimit -n 1024`, the usual default).
inline constexpr unsigned long kSuggestedOpenFilesLimit = 1024;

// The soft limit a test of `world_size` ranks needs, in the parent and in
// each rank: measured peaks with a margin; `reused_on_tcp` for reused ranks
// (RANKTEST_REUSE) on the TCP store, which hold the most.
unsigned long openFilesNeeded(int world_size, bool reused_on_tcp = false);

// Whether this process can open `needed` more descriptors than it holds now
// under its soft limit (counted in /proc/self/fd; true where unknown).
bool descriptorsToSpare(unsigned long needed);

// Throws std::runtime_error naming the limit, what the test needs and how to
// raise it, when the soft limit is lower.
void checkOpenFilesLimit(int world_size, bool reused_on_tcp = false);

}  // namespace ranktest::internal
