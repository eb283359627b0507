#include "ddp/internal/gradient_views.h"

#include <cstddef>

namespace distalgo::ddp::internal {

std::vector<at::Tensor> gradientViews(
    const at::Tensor& reduced, const at::Tensor& buffer,
    const std::vector<at::Tensor>& row_major,
    const std::vector<at::Tensor>& parameters) {
  const at::Tensor result = reduced.contiguous();
  std::vector<at::Tensor> out;
  out.reserve(parameters.size());
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const at::Tensor& p = parameters[i];
    const auto offset = row_major[i].storage_offset() - buffer.storage_offset();
    out.push_back(p.is_non_overlapping_and_dense()
                      ? result.as_strided(p.sizes(), p.strides(),
                                          result.storage_offset() + offset)
                      : result.narrow(0, offset, p.numel()).view(p.sizes()));
  }
  return out;
}

}  // namespace distalgo::ddp::internal
