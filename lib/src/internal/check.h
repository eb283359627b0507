#pragma once

// distalgo's checks of what a caller can get wrong, in the shape of c10's
// TORCH_CHECK: a condition, then the parts of the message, streamed with
// operator<< (c10::str) only when the condition fails. The message is the
// parts and nothing else: it starts with the name of the function or class
// that checks (docs/errors.md), and no file or line is added, because users
// and tests match these messages, some to PyTorch's wording.
//
// Example:
//   DISTALGO_CHECK_ARG(to >= 0 && to < world_size_,
//                      "distalgo::zero::ZeroRedundancyOptimizer::"
//                      "consolidateStateDict: rank ", to, " is not in [0, ",
//                      world_size_, ")");

#include <c10/util/StringUtil.h>

#include <stdexcept>

// Throws std::invalid_argument unless `condition`: the caller gave something
// unusable (an argument, what it holds, an environment variable it set).

#define DISTALGO_CHECK_ARG(condition, ...) \
  DISTALGO_CHECK_OR_THROW_(std::invalid_argument, condition, __VA_ARGS__)

// Throws std::logic_error unless `condition`: the object's state refuses the
// call (a call out of order, a mode that does not support it).
#define DISTALGO_CHECK_STATE(condition, ...) \
  DISTALGO_CHECK_OR_THROW_(std::logic_error, condition, __VA_ARGS__)

#define DISTALGO_CHECK_OR_THROW_(error_type, condition, ...) \
  do {                                                       \
    if (!(condition)) [[unlikely]] {                         \
      throw error_type(::c10::str(__VA_ARGS__));             \
    }                                                        \
  } while (false)
