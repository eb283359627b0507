#pragma once

// Runs a communication hook on a bucket built by hand around one tensor, as
// the reducer would, and returns the reduced result: hook tests can then
// choose the data exactly.

#include <ATen/ATen.h>

#include <torch/csrc/distributed/c10d/comm.hpp>
#include <vector>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/ddp/grad_bucket.h"
#include "torch_compat/grad_bucket.h"

namespace hookparity {

// The hook's result for a bucket holding `buffer` (one flat parameter of its
// length); `buffer` is the bucket's own, so in-place hooks change it.
inline at::Tensor runOnBuffer(const distalgo::ddp::CommHook& hook,
                              const at::Tensor& buffer) {
  const std::vector<c10::IntArrayRef> sizes{buffer.sizes()};
  auto bucket = torch_compat::makeGradBucket(
      /*index=*/0, /*bucket_count=*/1, buffer,
      /*offsets=*/{0}, /*lengths=*/{static_cast<size_t>(buffer.numel())}, sizes,
      /*parameters=*/{buffer});
  distalgo::ddp::GradBucket view(bucket);
  auto future = hook(view);
  future->wait();
  return distalgo::ddp::firstTensorOf(future->value());
}

}  // namespace hookparity
