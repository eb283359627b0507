#include "job/test_agreement.h"

#include <algorithm>
#include <utility>

#include "verdict/alike_ranks.h"

namespace ranktest::internal {

std::optional<std::string> disagreementOn(
    int number, const std::vector<std::string>& tests) {
  if (std::all_of(tests.begin(), tests.end(),
                  [&](const std::string& t) { return t == tests.front(); })) {
    return std::nullopt;
  }
  // The ranks at each test, in the order of each test's first rank.
  std::vector<std::pair<std::string, std::vector<int>>> groups;
  for (int rank = 0; rank < static_cast<int>(tests.size()); ++rank) {
    const std::string& test = tests[static_cast<std::size_t>(rank)];
    const auto group =
        std::find_if(groups.begin(), groups.end(),
                     [&](const auto& g) { return g.first == test; });
    if (group != groups.end()) {
      group->second.push_back(rank);
    } else {
      groups.push_back({test, {rank}});
    }
  }
  std::string text =
      "ranktest: the job's ranks do not run the same tests: as its "
      "distributed test #" +
      std::to_string(number) + ", ";
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto& [test, ranks] = groups[i];
    const bool one = ranks.size() == 1;
    text += (i == 0 ? "" : "; ") + rankList(ranks) +
            (test == kNoMoreTests
                 ? std::string(one ? " has none left (its run ended)"
                                   : " have none left (their runs ended)")
                 : (one ? " runs " : " run ") + test);
  }
  return text +
         ". Start every rank with the same binary and --gtest_filter; the "
         "job's later distributed tests fail at once";
}

}  // namespace ranktest::internal
