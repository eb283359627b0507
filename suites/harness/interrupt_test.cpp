// SIGINT or SIGTERM to a parent (a CI timeout, a Ctrl-C): the running test
// fails as interrupted, no later test runs, the XML of what ran is written,
// the exit code is 128 + the signal, and nothing is left behind. Each test
// runs the inner binary (inner/interrupted_tests.cpp) and signals its parent.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

#include "inner_run.h"

namespace harness_suite {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// The XML of one test case, from its <testcase> to the next one's.
std::string testCaseXml(const std::string& xml, const std::string& name) {
  const std::size_t begin = xml.find("<testcase name=\"" + name + "\"");
  if (begin == std::string::npos) return "";
  const std::size_t end = xml.find("<testcase ", begin + 1);
  return xml.substr(begin, end == std::string::npos ? end : end - begin);
}

// Runs `filter` and sends `signal_number` to the inner parent once `ready`
// holds for its output.
struct Interrupted {
  InnerResult result;
  bool signalled = false;
  std::chrono::milliseconds exit_after_signal{0};
};

Interrupted interrupt(const std::string& filter, int signal_number,
                      const std::function<bool(const std::string&)>& ready) {
  Interrupted run;
  Clock::time_point signalled_at;
  InnerOptions options;
  options.filter = filter;
  options.env = {{"RANKTEST_VERBOSE", "1"}};
  options.limit = 60s;
  options.watcher = [&](pid_t parent, const std::string&,
                        const std::string& output) {
    if (!ready(output)) return false;
    signalled_at = Clock::now();
    run.signalled = true;
    ::kill(parent, signal_number);
    return true;
  };
  run.result = runInner(options);
  if (run.signalled) {
    run.exit_after_signal =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() -
                                                              signalled_at);
  }
  return run;
}

class HarnessInterrupt : public ::testing::TestWithParam<int> {
 protected:
  std::string signalName() const {
    return GetParam() == SIGINT ? "SIGINT" : "SIGTERM";
  }
};

TEST_P(HarnessInterrupt, DistributedTestStopsItsRanksAndFailsAsInterrupted) {
  const Interrupted run =
      interrupt("InnerInterrupt.*", GetParam(), [](const std::string& out) {
        return countOccurrences(out, " ready\n") == 2;
      });
  const InnerResult& r = run.result;
  ASSERT_TRUE(run.signalled) << r.output;
  EXPECT_EQ(r.exit_code, 128 + GetParam()) << r.output;
  EXPECT_LT(run.exit_after_signal, 5s) << r.output;
  const std::string hung = testCaseXml(r.xml, "A_HangsInEveryRank/gloo_ws2");
  EXPECT_THAT(hung, AllOf(HasSubstr("<failure"),
                          HasSubstr("interrupted by " + signalName()),
                          // Both ranks hang alike: one block for them.
                          HasSubstr("ranks 0, 1 of 2 were still running, "
                                    "alike:")))
      << r.xml;
  EXPECT_THAT(
      testCaseXml(r.xml, "B_MustNotRun/gloo_ws2"),
      AllOf(HasSubstr("result=\"skipped\""), Not(HasSubstr("<failure"))))
      << r.xml;
  EXPECT_THAT(r.output, Not(HasSubstr("B_MustNotRun ran")));
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
  EXPECT_THAT(r.files_left, IsEmpty());
}

// A signal and another of its kind within a second (a teardown that signals
// a process group and its members) are one interrupt: the run still ends in
// order, with its XML. (Another signal later still ends it at once.)
TEST_P(HarnessInterrupt, SecondSignalOfTheKindWithinASecondIsTheSameInterrupt) {
  const int signal_number = GetParam();
  InnerOptions options;
  options.filter = "InnerInterrupt.*";
  options.env = {{"RANKTEST_VERBOSE", "1"}};  // the ranks' "ready", live
  options.limit = 60s;
  options.watcher = [&](pid_t parent, const std::string&,
                        const std::string& output) {
    if (countOccurrences(output, " ready\n") != 2) return false;
    ::kill(parent, signal_number);
    std::this_thread::sleep_for(100ms);
    ::kill(parent, signal_number);
    return true;
  };
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 128 + signal_number) << r.output;
  EXPECT_THAT(testCaseXml(r.xml, "A_HangsInEveryRank/gloo_ws2"),
              HasSubstr("interrupted by " + signalName()))
      << r.output;
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
  EXPECT_THAT(r.files_left, IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Harness, HarnessInterrupt,
                         ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) {
                           return info.param == SIGINT ? "sigint" : "sigterm";
                         });

TEST(HarnessInterruptPlain, TestThatReturnsIsFailedAsInterruptedAtItsEnd) {
  const Interrupted run = interrupt(
      "InnerInterruptPlain.A_*:InnerInterruptPlain.C_*", SIGTERM,
      [](const std::string& out) {
        return out.find("plain test waits for the signal") != std::string::npos;
      });
  const InnerResult& r = run.result;
  ASSERT_TRUE(run.signalled) << r.output;
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.output;
  EXPECT_LT(run.exit_after_signal, 4s) << r.output;
  EXPECT_THAT(testCaseXml(r.xml, "A_ReturnsSoonAfterItsLine"),
              AllOf(HasSubstr("<failure"), HasSubstr("interrupted by SIGTERM"),
                    HasSubstr("while this test ran")))
      << r.xml;
  EXPECT_THAT(r.output, Not(HasSubstr("C_MustNotRun ran")));
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
}

// The test does not return: after the grace the run ends without it, the
// XML written all the same.
TEST(HarnessInterruptPlain, TestThatNeverReturnsIsFailedAfterTheGrace) {
  const Interrupted run =
      interrupt("InnerInterruptPlain.B_*:InnerInterruptPlain.C_*", SIGTERM,
                [](const std::string& out) {
                  return out.find("plain test hangs") != std::string::npos;
                });
  const InnerResult& r = run.result;
  ASSERT_TRUE(run.signalled) << r.output;
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.output;
  EXPECT_GE(run.exit_after_signal, 2500ms) << "the grace is 3 s";
  EXPECT_LT(run.exit_after_signal, 7s) << r.output;
  EXPECT_THAT(testCaseXml(r.xml, "B_NeverReturns"),
              AllOf(HasSubstr("<failure"), HasSubstr("interrupted by SIGTERM"),
                    HasSubstr("did not return")))
      << r.xml;
  EXPECT_THAT(r.output, Not(HasSubstr("C_MustNotRun ran")));
  EXPECT_THAT(r.processes_left, IsEmpty()) << r.output;
}

// InnerInterruptBetween raises SIGTERM in its TearDownTestSuite.
TEST(HarnessInterruptPlain, SignalBetweenTestsFailsTheNextTestUnrun) {
  InnerOptions options;
  options.filter = "InnerInterruptBetween.*:InnerInterruptAfterTheSignal.*";
  options.limit = 30s;
  const InnerResult r = runInner(options);
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.output;
  EXPECT_THAT(testCaseXml(r.xml, "A_Passes"), Not(HasSubstr("<failure")))
      << r.xml;
  EXPECT_THAT(testCaseXml(r.xml, "A_MustNotRun"),
              AllOf(HasSubstr("<failure"), HasSubstr("interrupted by SIGTERM"),
                    HasSubstr("before this test started")))
      << r.xml;
  EXPECT_THAT(r.output, Not(HasSubstr("A_MustNotRun ran")));
}

}  // namespace
}  // namespace harness_suite
