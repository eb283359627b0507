#pragma once

// A CommHook as the reducer's c10d::CommHookInterface.

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/comm.hpp>

#include "distalgo/ddp/comm_hook.h"

namespace distalgo::ddp::internal {

// Adapts a CommHook to the reducer's interface; errors name the hook and
// `rank`, with the hook's own exception nested (std::throw_with_nested).
// Before the reducer writes any gradient of a backward pass, every bucket's
// result is checked against its bucket (checkHookResult). While a hook runs,
// and until its future completes, a hang note (hang_note.h) names it.
// (c10d's CppCommHookInterface is not usable: Debian's libtorch does not
// export the result parser it needs.)
std::unique_ptr<c10d::CommHookInterface> adaptCommHook(CommHook hook,
                                                       std::string name,
                                                       int rank);

// Throws std::runtime_error naming the hook, the bucket and the rank unless
// `result` has the element count and dtype of `bucket_buffer`: a result of
// another size would be scattered into the gradients as garbage (larger) or
// fail deep inside libtorch (smaller).
void checkHookResult(const std::string& hook_name, int rank,
                     std::size_t bucket_index, const at::Tensor& bucket_buffer,
                     const at::Tensor& result);

}  // namespace distalgo::ddp::internal
