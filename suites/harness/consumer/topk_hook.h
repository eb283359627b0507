#pragma once

// A user's communication hook: top-k sparsification with error feedback.
// Each rank sends the k largest entries (by magnitude) of its bucket plus
// what it left out before, and keeps the rest for the next step.

#include <cstdint>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distalgo/ddp/comm_hook.h"

namespace consumer {

// Entries sent of a bucket of `numel`: `ratio` of them, at least one.
std::int64_t topKCount(std::int64_t numel, double ratio);

// The hook: allgathers each rank's k values and their indices and averages
// the scattered sums over the ranks.
distalgo::ddp::CommHook topKHook(c10::intrusive_ptr<c10d::ProcessGroup> pg,
                                 double ratio);

}  // namespace consumer
