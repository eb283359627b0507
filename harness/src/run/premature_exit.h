#pragma once

// A process that exits while its tests run must not pass: code under test
// that calls exit(0) on an error path would otherwise end the binary with
// code 0, lose every failure reported before it, skip the tests after it and
// write no XML. googletest's answer is TEST_PREMATURE_EXIT_FILE, which only
// a runner that sets it can read; this guard works in the process itself.
//
// Armed from the start to the end of RUN_ALL_TESTS() in the process that
// runs the tests (not in its ranks, nor in a death test's child), it turns
// exit(), quick_exit() or a return from main into a failure of the test that
// was running (or of the run), writes the --gtest_output XML with it, and
// ends the process with code 1 (or 128 + signal after an interrupt).

#include <string>

namespace ranktest::internal {

// Installs the guard's listener and exit handlers. Parent only, after
// InitGoogleTest (the guard writes the XML through gtest's generator).
void failRunsThatExitEarly();

// Fails the running test (or the run, between tests) with `text`, writes the
// --gtest_output XML of what ran, prints `text` to stderr, and
// ends the process at once with `exit_code`: for runs that cannot return to
// googletest (an exit inside a test, a test stuck after an interrupt).
[[noreturn]] void failRunAndEnd(const std::string& text, int exit_code);

// Writes the --gtest_output XML of what ran so far, through gtest's own
// generator (which writes it again, whole, at the run's end); nothing where
// no XML was asked for.
void writeXmlOfWhatRan();

}  // namespace ranktest::internal
