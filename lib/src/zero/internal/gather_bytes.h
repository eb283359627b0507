#pragma once

// Gathers one byte string per rank onto a root rank over a c10d process group.
// Gloo has no gather of unequal sizes, so the sizes go first (allgather) and
// the strings follow padded to the largest.

#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

namespace distalgo::zero::internal {

// Collective. On `root`, every rank's `bytes` in rank order; elsewhere empty.
std::vector<std::string> gatherBytes(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, const std::string& bytes,
    int root);

}  // namespace distalgo::zero::internal
