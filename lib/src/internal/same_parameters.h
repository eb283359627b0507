#pragma once

// Construction-time check that every rank holds the same parameters, shared
// by DDP and ZeRO: a mismatch would otherwise surface as a hang or a Gloo
// size error in the first collective.

#include <cstdint>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

namespace distalgo::internal {

// Collective. Throws std::invalid_argument on every rank, with the same
// message beginning with `owner`, when the ranks' parameters differ in count,
// shape, dtype or split into groups (`group_sizes`, summing to the count;
// empty means one group). The message names the first differing parameter
// (`names`, as this rank calls them) and the ranks that differ from rank 0.
void checkSameParametersOnEveryRank(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const std::vector<at::Tensor>& parameters,
    const std::vector<std::string>& names, const std::string& owner,
    const std::vector<std::int64_t>& group_sizes = {});

}  // namespace distalgo::internal
