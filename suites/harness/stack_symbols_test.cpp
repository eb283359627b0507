// A rank's frames become "function at file:line" where the executable knows
// them, and stay as written everywhere else.

#include "verdict/stack_symbols.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <link.h>

#include <cstdint>
#include <string>
#include <vector>

namespace harness_suite {

// Resolved by the test below; outside the anonymous namespace and not
// inlined, so that it has an address of its own.
__attribute__((noinline)) int functionToSymbolize(int x) { return x * 3 + 1; }

namespace {

using namespace ranktest::internal;
using ::testing::ContainsRegex;
using ::testing::ElementsAre;

std::uintptr_t executableBias() {
  std::uintptr_t bias = 0;
  ::dl_iterate_phdr(
      [](struct dl_phdr_info* info, std::size_t, void* out) {
        *static_cast<std::uintptr_t*>(out) = info->dlpi_addr;
        return 1;  // the first object is the executable
      },
      &bias);
  return bias;
}

TEST(HarnessStackSymbols, ParseFrameSplitsTheOffsetTokenFromTheText) {
  const RawFrame inside = parseFrame("exe+0x1a2b ./suite(f+0x1) [0x55]");
  EXPECT_EQ(inside.offset, 0x1a2b);
  EXPECT_EQ(inside.text, "./suite(f+0x1) [0x55]");
  const RawFrame outside = parseFrame("/lib/libc.so.6(+0x10) [0x7f]");
  EXPECT_EQ(outside.offset, -1);
  EXPECT_EQ(outside.text, "/lib/libc.so.6(+0x10) [0x7f]");
}

TEST(HarnessStackSymbols, AFrameInTheExecutableGetsItsFileAndLine) {
  EXPECT_EQ(functionToSymbolize(1), 4);
  const auto offset =
      static_cast<long>(reinterpret_cast<std::uintptr_t>(&functionToSymbolize) -
                        executableBias());
  const std::vector<std::string> lines =
      symbolizeFrames({{"as written", offset}}, ownExecutable());
  ASSERT_EQ(lines.size(), 1U);
  EXPECT_THAT(lines[0], ContainsRegex("functionToSymbolize\\(int\\) at "
                                      "[^ ]*stack_symbols_test\\.cpp:[0-9]+"));
}

TEST(HarnessStackSymbols, FramesElsewhereOrUnresolvedStayAsWritten) {
  EXPECT_THAT(symbolizeFrames({{"libc frame", -1}}, ownExecutable()),
              ElementsAre("libc frame"));
  EXPECT_THAT(symbolizeFrames({{"frame", 0x10}}, "/nonexistent/binary"),
              ElementsAre("frame"));
  EXPECT_THAT(symbolizeFrames({{"frame", 0x10}}, ""), ElementsAre("frame"));
}

}  // namespace
}  // namespace harness_suite
