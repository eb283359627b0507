#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <string>

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
}

int runAllTests() { return RUN_ALL_TESTS(); }

}  // namespace ranktest
