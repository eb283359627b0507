#pragma once

// How the parent ends a run interrupted by SIGINT or SIGTERM: the test that
// was running fails with "interrupted by SIG...", gtest's fail_fast skips the
// tests after it, the --gtest_output XML is written as usual, and the process
// exits with 128 + the signal's number (130 for SIGINT, 143 for SIGTERM), as
// a shell reports a process the signal killed.
//
// A distributed test reacts at once (its supervisor polls interruptFd()); a
// plain test is reported when it returns. One that does not return within
// kInterruptGrace is failed from a watchdog thread, which then writes the XML
// itself and exits: best effort, as the test still runs meanwhile.

#include <chrono>

namespace ranktest::internal {

inline constexpr std::chrono::seconds kInterruptGrace{3};

// Installs the signal handlers, the gtest listener and the watchdog. Parent
// only, after InitGoogleTest (the listener must see the XML generator).
void endRunsInOrderOnInterrupt();

// The process's exit code: `run_result` (RUN_ALL_TESTS()'s), or 128 + the
// signal after an interrupt. A main that returns RUN_ALL_TESTS() directly
// still exits non-zero: the interrupted test failed.
int exitCodeOfRun(int run_result);

}  // namespace ranktest::internal
