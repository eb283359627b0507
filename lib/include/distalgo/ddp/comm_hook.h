#pragma once

// A DDP communication hook as a C++ callable: it receives a bucket of
// gradients once they are ready and returns a future of the reduced bucket
// (one tensor shaped like bucket.buffer(), or a list whose first element
// is). The callable holds its own state.

#include <functional>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/comm.hpp>

#include "distalgo/ddp/grad_bucket.h"

namespace distalgo::ddp {

using CommHook =
    std::function<c10::intrusive_ptr<c10::ivalue::Future>(GradBucket& bucket)>;

// The tensor a hook's future holds: the value itself, or the first element
// of a list of tensors; an undefined tensor for anything else.
at::Tensor firstTensorOf(const c10::IValue& value);

namespace internal {

// Adapts a CommHook to the reducer's interface; errors name the hook and
// `rank`. (c10d's CppCommHookInterface is not usable: Debian's libtorch does
// not export the result parser it needs.)
std::unique_ptr<c10d::CommHookInterface> adaptCommHook(CommHook hook,
                                                       std::string name,
                                                       int rank);

}  // namespace internal
}  // namespace distalgo::ddp
