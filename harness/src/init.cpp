#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "ranktest/internal/interrupted_run.h"
#include "ranktest/internal/rank_process.h"
#include "ranktest/internal/rank_runner.h"
#include "ranktest/param_test.h"
#include "ranktest/ranktest.h"

namespace ranktest {

void init(int* argc, char** argv) {
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
  internal::endRunsInOrderOnInterrupt();
}

int runAllTests() {
  const int result = internal::exitCodeOfRun(RUN_ALL_TESTS());
  if (result != 0 || GTEST_FLAG_GET(list_tests)) return result;
  // As googletest's newer --gtest_fail_if_no_test_selected, always on: a
  // filter that matches nothing (a typo, or a name from another build) must
  // not pass. A shard may legitimately be empty.
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  const char* shards = std::getenv("GTEST_TOTAL_SHARDS");
  const bool sharded = shards != nullptr && std::atoi(shards) > 1;
  if (unit.test_to_run_count() == 0 && !sharded) {
    std::cerr << "[ranktest] no test selected: --gtest_filter='"
              << GTEST_FLAG_GET(filter)
              << "' matches no test of this binary (see --gtest_list_tests)"
              << std::endl;
    return 1;
  }
  return 0;
}

}  // namespace ranktest
