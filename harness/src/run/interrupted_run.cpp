#include "run/interrupted_run.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>

#include "process/interrupt.h"
#include "run/premature_exit.h"
#include "verdict/verdict.h"

namespace ranktest::internal {
namespace {

// Who ends the run: the main thread, in order, or the watchdog, because the
// main thread is stuck in a test. Whoever leaves kTesting first.
enum Phase { kTesting, kFinishing, kForced };
std::atomic<int> g_phase{kTesting};

std::string interruptedBy() {
  return "[ranktest] interrupted by " + describeSignal(interruptSignal());
}

// Reports the interrupt once, on the test at hand (or on the run when none
// is); every later test is skipped by fail_fast.
class InterruptListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestIterationStart(const ::testing::UnitTest&, int) override {
    // --gtest_repeat: the interrupted iteration was the last one.
    if (interruptSignal() != 0) std::exit(exitCodeOfRun(1));
    int finishing = kFinishing;
    g_phase.compare_exchange_strong(finishing, kTesting);
  }

  // A signal between tests: this test must not run (a fatal failure before
  // the fixture is built keeps its body from running).
  void OnTestStart(const ::testing::TestInfo& test) override {
    if (!unreported()) return;
    markReported();
    GTEST_FAIL_AT(test.file(), test.line())
        << interruptedBy()
        << " before this test started; it and the tests after it do not run";
    writeTheXmlNow();
  }

  void OnTestEnd(const ::testing::TestInfo& test) override {
    if (interruptSignal() == 0) return;
    if (unreported()) {
      markReported();
      ADD_FAILURE_AT(test.file(), test.line())
          << interruptedBy()
          << " while this test ran; the tests after it do not run";
    }
    GTEST_FLAG_SET(fail_fast, true);
    writeTheXmlNow();
  }

  // Before the XML generator's turn (end events go to listeners in reverse).
  void OnTestIterationEnd(const ::testing::UnitTest&, int) override {
    int testing = kTesting;
    if (!g_phase.compare_exchange_strong(testing, kFinishing)) {
      // The silence watch writes the XML and exits the process.
      for (;;) ::pause();
    }
    if (unreported()) {
      markReported();
      ADD_FAILURE() << interruptedBy() << " after the last test";
    }
  }

 private:
  // Once, with the interrupted test failed in it, before the console lines
  // of the tests skipped after it: a launcher that stops relaying a rank's
  // output once signalled (mpirun) blocks those writes, and kills the rank
  // before the XML's turn at the end of the run would come. Written again
  // there, whole.
  void writeTheXmlNow() {
    if (xml_written_early_) return;
    xml_written_early_ = true;
    writeXmlOfWhatRan();
  }

  static bool unreported() {
    return interruptSignal() != 0 && !interruptReported();
  }
  static void markReported() {
    markInterruptReported();
    GTEST_FLAG_SET(fail_fast, true);
  }

  bool xml_written_early_ = false;
};

[[noreturn]] void endStuckRun() {
  failRunAndEnd(interruptedBy() + ": the test did not return " +
                    std::to_string(kInterruptGrace.count()) +
                    " s after the signal; the run ends without it",
                exitCodeOfRun(1));
}

void watchdog() {
  pollfd interrupt{interruptFd(), POLLIN, 0};
  while (::poll(&interrupt, 1, -1) <= 0) {
  }
  const auto end = std::chrono::steady_clock::now() + kInterruptGrace;
  while (g_phase.load() == kTesting && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  int testing = kTesting;
  if (g_phase.compare_exchange_strong(testing, kForced)) endStuckRun();
}

}  // namespace

void endRunsInOrderOnInterrupt() {
  installInterruptHandlers();
  if (interruptFd() < 0) return;
  ::testing::UnitTest::GetInstance()->listeners().Append(new InterruptListener);
  std::thread(watchdog).detach();
}

int exitCodeOfRun(int run_result) {
  const int signal_number = interruptSignal();
  return signal_number != 0 ? 128 + signal_number : run_result;
}

}  // namespace ranktest::internal
