#include "distalgo/hooks/internal/quantize.h"

#include <ATen/ATen.h>

#include <limits>

namespace distalgo::hooks::internal {
namespace {

constexpr double kQuantMax = 255;

// The observers' _calculate_qparams, given the (widened) extremes.
QuantParams paramsFromRange(const at::Tensor& min_val,
                            const at::Tensor& max_val) {
  const at::Tensor min_neg = at::clamp_max(min_val, 0);
  const at::Tensor max_pos = at::clamp_min(max_val, 0);
  const at::Tensor scale = at::clamp_min((max_pos - min_neg) / kQuantMax,
                                         std::numeric_limits<float>::epsilon());
  const at::Tensor zero_point =
      at::clamp(at::round(min_neg / scale).neg(), 0, kQuantMax);
  return {scale, zero_point};
}

}  // namespace

QuantParams minMaxParams(const at::Tensor& x) {
  const at::Tensor x32 = x.to(at::kFloat);
  return paramsFromRange(x32.min(), x32.max());
}

QuantParams perRowMinMaxParams(const at::Tensor& rows) {
  const at::Tensor x32 = rows.to(at::kFloat);
  return paramsFromRange(std::get<0>(x32.min(1)), std::get<0>(x32.max(1)));
}

at::Tensor quantize(const at::Tensor& x, const at::Tensor& scale,
                    const at::Tensor& zero_point) {
  return at::clamp(at::round(x.to(at::kFloat) / scale) + zero_point, 0,
                   kQuantMax)
      .to(at::kByte);
}

at::Tensor dequantize(const at::Tensor& y, const at::Tensor& scale,
                      const at::Tensor& zero_point) {
  return scale * (y.to(at::kFloat) - zero_point);
}

}  // namespace distalgo::hooks::internal
