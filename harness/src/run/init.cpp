#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "job/launched_job.h"
#include "job/launched_run.h"
#include "job/launcher_env.h"
#include "plan/filter_check.h"
#include "plan/registry.h"
#include "process/rank_process.h"
#include "rank/rank_runner.h"
#include "ranktest/param_test.h"
#include "ranktest/ranktest.h"
#include "run/init_guard.h"
#include "run/interrupted_run.h"
#include "run/premature_exit.h"
#include "warm/build_identity.h"
#include "warm/warm_protocol.h"
#include "warm/warm_server.h"
#include "wire/number_text.h"

namespace ranktest {
namespace {

// Started by a launcher: this process is one rank of the job. Only rank 0
// prints and writes the XML; the others keep quiet unless
// RANKTEST_ALL_RANKS_REPORT=1.
void joinLaunchedJob() {
  std::unique_ptr<internal::LaunchedJob> job;
  try {
    job = internal::LaunchedJob::join(internal::LaunchedJob::formingLimit());
  } catch (const std::exception& error) {
    std::cerr << "[ranktest] " << error.what() << std::endl;
    std::exit(kTestErrorExitCode);
  }
  if (!job) return;
  internal::takePartInTheJob(*job);
  if (job->launched().rank != 0) {
    if (!settings().all_ranks_report) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
      delete listeners.Release(listeners.default_xml_generator());
    }
  }
  internal::LaunchedJob::setCurrent(std::move(job));
}

std::string noTestSelected() {
  return "[ranktest] no test selected: --gtest_filter='" +
         GTEST_FLAG_GET(filter) +
         "' matches no test of this binary (see --gtest_list_tests)";
}

// As googletest's newer --gtest_fail_if_no_test_selected, always on: a
// filter that matches nothing (a typo, or a name from another build) must
// not pass. A shard may legitimately be empty.
int failIfNoTestSelected() {
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  const char* shards = std::getenv("GTEST_TOTAL_SHARDS");
  // googletest has already refused a GTEST_TOTAL_SHARDS that is no integer.
  const bool sharded =
      shards != nullptr && internal::parseInteger(shards, 2, INT32_MAX);
  if (unit.test_to_run_count() == 0 && !sharded) {
    std::cerr << noTestSelected() << std::endl;
    return 1;
  }
  return 0;
}

// Every positive pattern of the filter must match a test: a typo in one of
// several patterns would otherwise only run fewer tests. Checked before any
// test runs, against every registered test (every shard, every cell: under
// WORLD_SIZE or BACKEND the other cells' instances exist, skipped).
int failIfAPatternMatchesNothing() {
  std::vector<std::string> names;
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      names.push_back(std::string(suite.name()) + "." +
                      suite.GetTestInfo(t)->name());
    }
  }
  const std::string filter = GTEST_FLAG_GET(filter);
  const std::vector<internal::UnmatchedPattern> unmatched =
      internal::unmatchedPatterns(filter, names);
  if (unmatched.empty()) return 0;
  if (!internal::selectsAny(filter, names))
    std::cerr << noTestSelected() << "\n";
  std::cerr << internal::describeUnmatched(unmatched) << std::flush;
  return 1;
}

// RANKTEST_SKIPPED_EXIT_CODE=C (ranktest_add_suite sets it for ctest, with
// SKIP_RETURN_CODE C): a run whose every selected test was skipped exits
// with C, so that ctest tells a skip from a pass by the exit code alone.
int skippedExitCode() {
  const char* code = std::getenv("RANKTEST_SKIPPED_EXIT_CODE");
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  if (code == nullptr || unit.test_to_run_count() == 0 ||
      unit.skipped_test_count() != unit.test_to_run_count()) {
    return 0;
  }
  const std::optional<std::int64_t> value =
      internal::parseInteger(code, 1, 255);
  if (!value) {
    std::cerr << "ranktest: RANKTEST_SKIPPED_EXIT_CODE='" << code
              << "' is not an exit code from 1 to 255: every test skipped, "
                 "but this run cannot say so"
              << std::endl;
    return 1;
  }
  return static_cast<int>(*value);
}

// A listing run whose result the ctest client caches: the files this binary
// maps, whose identities keep the cache valid.
void writeMappedFilesForTheListingCache() {
  const char* path = std::getenv(internal::kListMappedFilesVariable);
  if (path == nullptr || *path == '\0') return;
  std::ofstream out(path, std::ios::trunc);
  for (const std::string& file : internal::mappedFiles()) out << file << '\n';
}

// A variable ranktest cannot use, or a world size at which no distributed
// test of this binary holds (a ctest or CI cell that would skip everything
// and pass), ends the run before any test, naming it. Before a launched job
// forms: every rank refuses alike, and nothing of the job is left.
void refuseWhatCannotRun() {
  const Settings& s = settings();
  if (!s.error.empty()) {
    std::cerr << "[ranktest] bad environment: " << s.error << std::endl;
    std::exit(kTestErrorExitCode);
  }
  if (!s.world_size || s.listing_tests) return;
  const std::string declared = internal::sizesWhereNoneHoldsAt(*s.world_size);
  if (declared.empty()) return;
  std::string cell = "WORLD_SIZE=" + std::to_string(*s.world_size);
  try {
    if (auto job = internal::detectLauncher(&internal::processEnvironment)) {
      cell = "the job of " + std::to_string(job->world_size) + " ranks (" +
             job->launcher + ")";
    }
  } catch (const std::invalid_argument&) {
  }
  std::cerr << "[ranktest] " << cell
            << " runs no distributed test of this binary: every one would "
               "skip, and the run pass with nothing run. Its tests are "
               "declared at "
            << declared << std::endl;
  std::exit(kTestErrorExitCode);
}

}  // namespace

void init(int* argc, char** argv) {
  // A warm process serves here, with nothing else of init done yet; each
  // test's child continues below with that test's arguments.
  internal::serveWarmIfAsked(argc, argv);
  internal::noteInitCalled();
  // Before gtest strips its flags: a spawned rank gets them too.
  internal::setOriginalArguments(*argc, argv);
  std::optional<internal::RankLaunch> launch;
  for (int i = 1; i < *argc; ++i) {
    if (std::strncmp(argv[i], internal::kRankFlag,
                     std::strlen(internal::kRankFlag)) == 0) {
      try {
        launch = internal::decodeRankLaunch(argv[i] +
                                            std::strlen(internal::kRankFlag));
      } catch (const std::exception& error) {
        std::cerr << "[ranktest] " << error.what() << std::endl;
        std::exit(kTestErrorExitCode);
      }
    }
  }
  internal::runDeferredRegistrations();
  ::testing::InitGoogleTest(argc, argv);
  if (launch) {
    internal::runRankProcess(*launch);
  }
  refuseWhatCannotRun();
  if (settings().listing_tests) {
    writeMappedFilesForTheListingCache();
  } else {
    joinLaunchedJob();
  }
  internal::endRunsInOrderOnInterrupt();
  internal::failRunsThatExitEarly();
}

int runAllTests() {
  internal::LaunchedJob* job = internal::LaunchedJob::current();
  if (!GTEST_FLAG_GET(list_tests)) {
    if (const int bad_filter = failIfAPatternMatchesNothing()) {
      // As after a run, so that a launched job's ranks end together.
      return job != nullptr ? job->finish(bad_filter) : bad_filter;
    }
  }
  int result = internal::exitCodeOfRun(RUN_ALL_TESTS());
  // Ranks other than 0 of a launched job may have nothing left to run: only
  // plain tests were selected, and rank 0 runs those.
  if (result == 0 && !GTEST_FLAG_GET(list_tests) &&
      (job == nullptr || job->launched().rank == 0)) {
    result = failIfNoTestSelected();
  }
  // Where the run had no test, or its last test did not end (it exited),
  // the job ends here; otherwise this gives the job's code again.
  if (job != nullptr) {
    result = job->finish(result);
    // Only rank 0 runs the plain tests: its code is the job's.
    if (job->launched().rank != 0) return result;
  }
  return result != 0 ? result : skippedExitCode();
}

}  // namespace ranktest
