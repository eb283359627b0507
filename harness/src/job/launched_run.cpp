#include "job/launched_run.h"

#include <gtest/gtest.h>

#include <string>

#include "job/launched_job.h"
#include "plan/registry.h"
#include "run/interrupted_run.h"

namespace ranktest::internal {
namespace {

class LaunchedRunListener : public ::testing::EmptyTestEventListener {
 public:
  explicit LaunchedRunListener(LaunchedJob& job) : job_(job) {}

  // A skip recorded before the test object exists keeps the fixture and the
  // body from running.
  void OnTestStart(const ::testing::TestInfo& test) override {
    if (job_.launched().rank == 0) return;
    const std::string name =
        std::string(test.test_suite_name()) + "." + test.name();
    if (findTestInstance(name) != nullptr) return;
    GTEST_MESSAGE_AT_(test.file(), test.line(),
                      "a plain test runs once, in rank 0",
                      ::testing::TestPartResult::kSkip);
  }

  // The listener is appended after googletest's printer and XML generator:
  // it sees a test's end before they do.
  void OnTestEnd(const ::testing::TestInfo& test) override {
    const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
    if (++ended_ != unit.test_to_run_count()) return;
    job_.finish(exitCodeOfRun(unit.Passed() ? 0 : 1));
    if (!job_.endFailures().empty()) {
      ADD_FAILURE_AT(test.file(), test.line())
          << "[ranktest] the job failed after rank 0's last test:\n"
          << job_.endFailures();
    }
  }

 private:
  LaunchedJob& job_;
  int ended_ = 0;
};

}  // namespace

void takePartInTheJob(LaunchedJob& job) {
  ::testing::UnitTest::GetInstance()->listeners().Append(
      new LaunchedRunListener(job));
}

}  // namespace ranktest::internal
