#pragma once

// PyTorch's apply_activation_checkpointing: wraps, in place, every submodule
// that a predicate selects in a CheckpointWrapper.

#include <torch/nn/module.h>

#include <functional>

#include "distalgo/checkpoint/checkpoint.h"

namespace distalgo::checkpoint {

// Replaces every descendant of `model` (never the root) for which
// `predicate` holds with a CheckpointWrapper around it, and returns how many
// it wrapped. Matches nest: a selected module's own descendants are visited
// first. Existing wrappers are left alone. Parameter names and state-dict
// keys do not change (see checkpoint_wrapper.h).
//
// A module's forward reaches its children either through a Sequential
// (which calls what it holds) or through members of the parent's class,
// which no library can rebind: a match outside a Sequential throws
// std::invalid_argument, before anything is replaced.
//
// Example:
//   applyActivationCheckpointing(*model, [](const torch::nn::Module& m) {
//     return dynamic_cast<const torch::nn::LinearImpl*>(&m) != nullptr;
//   });
int applyActivationCheckpointing(
    torch::nn::Module& model,
    const std::function<bool(const torch::nn::Module&)>& predicate,
    const CheckpointOptions& options = {});

}  // namespace distalgo::checkpoint
