// Paths inside ranktest's own tree read relative to it; others stay.

#include "verdict/source_paths.h"

#include <gtest/gtest.h>

#include <string>

namespace harness_suite {
namespace {

using namespace ranktest::internal;

TEST(HarnessSourcePaths, TheRootIsTheTreeThisLibraryWasBuiltFrom) {
  const std::string& root = sourceRoot();
  if (root.empty()) GTEST_SKIP() << "compiled with relative paths";
  EXPECT_EQ(root, std::string(RANKTEST_SOURCE_DIR) + "/");
}

TEST(HarnessSourcePaths, OnlyPathsThatStartWithTheRootAreShortened) {
  EXPECT_EQ(relativeTo("/src/rt/", "f() at /src/rt/harness/src/a.cpp:3"),
            "f() at harness/src/a.cpp:3");
  EXPECT_EQ(relativeTo("/src/rt/", "/src/rt/lib/x.cpp and /src/rt/y.h"),
            "lib/x.cpp and y.h");
  // The same letters inside a longer path are another directory.
  EXPECT_EQ(relativeTo("/src/rt/", "at /home/src/rt/a.cpp"),
            "at /home/src/rt/a.cpp");
  EXPECT_EQ(relativeTo("", "/src/rt/a.cpp"), "/src/rt/a.cpp");
}

}  // namespace
}  // namespace harness_suite
