#include "quantization/internal/staging.h"

#include <ATen/ops/empty.h>

#include <array>
#include <cstddef>

namespace distalgo::quantization::internal {

at::Tensor staging(StagingSlot slot, std::int64_t numel, at::ScalarType dtype) {
  thread_local std::array<at::Tensor,
                          static_cast<std::size_t>(StagingSlot::kCount)>
      buffers;
  at::Tensor& buffer = buffers.at(static_cast<std::size_t>(slot));
  if (!buffer.defined() || buffer.scalar_type() != dtype ||
      buffer.numel() < numel) {
    buffer = at::empty({numel}, at::TensorOptions().dtype(dtype));
  }
  return buffer.narrow(0, 0, numel);
}

}  // namespace distalgo::quantization::internal
