#include "run/premature_exit.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

#include "run/interrupted_run.h"

namespace ranktest::internal {
namespace {

// The process whose exit is a premature one; 0 outside RUN_ALL_TESTS(). A
// pid, not a flag: the ranks forked during a test inherit the handlers.
std::atomic<pid_t> g_guarded{0};

// Tests that were to run after the running one, or all when none runs.
int testsNotRun(const ::testing::UnitTest& unit) {
  const ::testing::TestInfo* current = unit.current_test_info();
  bool after = current == nullptr;
  int count = 0;
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const ::testing::TestInfo* test = suite.GetTestInfo(t);
      if (test == current) {
        after = true;
      } else if (after && test->should_run() && !test->result()->Skipped() &&
                 test->result()->total_part_count() == 0 &&
                 test->result()->elapsed_time() == 0) {
        ++count;
      }
    }
  }
  return count;
}

void onExitDuringRun() {
  if (g_guarded.load() != ::getpid()) return;
  g_guarded = 0;
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  const int not_run = testsNotRun(unit);
  std::string text =
      "[ranktest] the process exited (exit(), quick_exit() or a return from "
      "main) ";
  text += unit.current_test_info() != nullptr ? "while this test ran"
                                              : "during the test run";
  text += ": a test may not end its process";
  if (not_run > 0) {
    text += "; " + std::to_string(not_run) + " test" +
            (not_run == 1 ? "" : "s") + " after it did not run";
  }
  failRunAndEnd(text, exitCodeOfRun(1));
}

// Arms the guard for the run; a death test's child (which googletest
// re-executes or forks to exit on purpose) is left alone.
class ExitGuardListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestProgramStart(const ::testing::UnitTest&) override {
    if (!GTEST_FLAG_GET(internal_run_death_test).empty()) return;
    g_guarded = ::getpid();
  }
  void OnTestProgramEnd(const ::testing::UnitTest&) override { g_guarded = 0; }
};

}  // namespace

void failRunsThatExitEarly() {
  // Registered after static initialisation: runs before the destructors of
  // the statics, with googletest's state intact.
  std::atexit(onExitDuringRun);
  std::at_quick_exit(onExitDuringRun);
  ::testing::UnitTest::GetInstance()->listeners().Append(new ExitGuardListener);
}

void writeXmlOfWhatRan() {
  ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (auto* xml = unit.listeners().default_xml_generator()) {
    xml->OnTestIterationEnd(unit, 0);
  }
}

void failRunAndEnd(const std::string& text, int exit_code) {
  ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  const ::testing::TestInfo* test = unit.current_test_info();
  if (test != nullptr) {
    ADD_FAILURE_AT(test->file(), test->line()) << text;
  } else {
    ADD_FAILURE() << text;
  }
  writeXmlOfWhatRan();
  std::fprintf(stderr, "%s; results so far are in the XML; exit code %d\n",
               text.c_str(), exit_code);
  std::fflush(nullptr);
  ::_exit(exit_code);
}

}  // namespace ranktest::internal
