#pragma once

// A DDP communication hook as a C++ callable: it receives a bucket of
// gradients once they are ready and returns a future of the reduced bucket
// (one tensor with bucket.buffer()'s element count and dtype, or a list whose
// first element is one; any other result fails backward, naming the hook, the
// bucket and the rank, before a gradient is written). The callable holds its
// own state.

#include <functional>

#include "distalgo/ddp/grad_bucket.h"

namespace distalgo::ddp {

using CommHook =
    std::function<c10::intrusive_ptr<c10::ivalue::Future>(GradBucket& bucket)>;

// The tensor a hook's future holds: the value itself, or the first element
// of a list of tensors; an undefined tensor for anything else.
at::Tensor firstTensorOf(const c10::IValue& value);

}  // namespace distalgo::ddp
