#pragma once

// Construction-time check that every rank holds the same parameters.

#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

namespace distalgo::ddp::internal {

// Collective. Throws std::invalid_argument on every rank, with the same
// message, when the ranks' parameters differ in count, shape or dtype; the
// message names the first differing parameter and the ranks that differ
// from rank 0.
void checkSameParametersOnEveryRank(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
    const std::vector<at::Tensor>& parameters,
    const std::vector<std::string>& names);

}  // namespace distalgo::ddp::internal
