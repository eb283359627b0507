#pragma once

// Ranks that fail alike are reported once: two reports are alike when they
// are identical apart from the rank itself (its number, pid, host, output,
// and the load addresses in its stack, which differ between processes),
// and their messages may each name their own rank ("on rank 0" in rank 0's,
// "on rank 1" in rank 1's), as a hook's error or a user's `<< rank()` does.

#include <string>
#include <vector>

#include "wire/rank_report.h"

namespace ranktest::internal {

// Whether `a` and `b` ended the same way with the same failures, exceptions,
// skip and stack; a whole-word "rank <its own number>" in a message counts
// as the same in both, another rank's number does not. A rank the parent
// stopped after it had reported failures ended as one that finished failed:
// it was stopped only for being later.
bool reportsAlike(const RankReport& a, const RankReport& b);

// `ranks` as groups of alike reports: each group in the order of its first
// member in `ranks`, members in their order there.
std::vector<std::vector<const RankReport*>> groupAlike(
    const std::vector<const RankReport*>& ranks);

// "rank 1" or "ranks 0, 2", in rank order.
std::string rankList(std::vector<int> ranks);
std::string rankList(const std::vector<const RankReport*>& group);

// What the alike ranks of `group` reported, once, as lines of a report:
// the first's failures, exceptions and stack (library frames folded when
// `fold_stacks`), then each distinct output tail once. Where the others'
// messages named their own rank instead, a line says the text is the
// first's: "as rank 0 reported it (rank 1: the same, with its own rank
// number)".
std::string groupDetails(const std::vector<const RankReport*>& group,
                         bool fold_stacks);

}  // namespace ranktest::internal
