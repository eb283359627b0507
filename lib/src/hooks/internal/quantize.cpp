#include "distalgo/hooks/internal/quantize.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "hooks/internal/byte_kernels.h"
#include "torch_compat/version.h"

namespace distalgo::hooks::internal {
namespace {

constexpr double kQuantMax = 255;
// Elements per task when coding in parallel.
constexpr std::int64_t kByteGrain = 1 << 15;

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

// Whether the kernels can take `x` (of `dtype`) with these qparams: all on
// the CPU, contiguous, and one pair for the whole of x or one per row of a
// 2-D x ([rows, 1], as the per-channel hook passes them).
bool inGroups(const at::Tensor& x, at::ScalarType dtype,
              const at::Tensor& scale, const at::Tensor& zero_point) {
  const bool one_pair = scale.numel() == 1 && zero_point.numel() == 1;
  const bool per_row = x.dim() == 2 && scale.dim() == 2 &&
                       scale.size(0) == x.size(0) && scale.size(1) == 1 &&
                       zero_point.sizes() == scale.sizes();
  return x.device().is_cpu() && x.scalar_type() == dtype && x.is_contiguous() &&
         (one_pair || per_row) && scale.device().is_cpu() &&
         zero_point.device().is_cpu() && scale.scalar_type() == at::kFloat &&
         zero_point.scalar_type() == at::kFloat && scale.is_contiguous() &&
         zero_point.is_contiguous();
}

// Calls fn(begin, n, scale, zero_point) over [0, numel) in parallel chunks,
// each within one group of numel / groups elements and its qparams.
template <typename Fn>
void forEachGroup(std::int64_t numel, const at::Tensor& scale,
                  const at::Tensor& zero_point, Fn fn) {
  const std::int64_t per_group = numel / scale.numel();
  const float* s = scale.data_ptr<float>();
  const float* z = zero_point.data_ptr<float>();
  at::parallel_for(
      0, numel, kByteGrain, [&](std::int64_t begin, std::int64_t end) {
        while (begin < end) {
          const std::int64_t g = begin / per_group;
          const std::int64_t stop = std::min(end, (g + 1) * per_group);
          fn(begin, stop - begin, s[g], z[g]);
          begin = stop;
        }
      });
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
  if (!inGroups(x, at::kFloat, scale, zero_point)) {
    // As PyTorch's hooks divide a bucket by a 0-dimensional float32 scale
    // on the bucket's device: the quotient is of x's type (a 16-bit one
    // computed in float32, then rounded). The scale is rounded to x's type
    // first, except where 2.x takes it as a CPU scalar (x on the CPU). A
    // 16-bit quotient is rounded to an integer in float32 (1.13 has no CPU
    // round for Half), which gives the same integer.
    const at::ScalarType type = x.scalar_type();
    const at::ScalarType math =
        type == at::kHalf || type == at::kBFloat16 ? at::kFloat : type;
    const bool full_scale =
        torch_compat::kTorchMajor >= 2 && x.device().is_cpu();
    const at::Tensor divisor =
        full_scale ? scale.to(math) : scale.to(type).to(math);
    const at::Tensor quotient = (x.to(math) / divisor).to(type);
    return at::clamp(at::round(quotient.to(math)).to(at::kFloat) + zero_point,
                     0, kQuantMax)
        .to(at::kByte);
  }
  at::Tensor y = at::empty(x.sizes(), x.options().dtype(at::kByte));
  forEachGroup(x.numel(), scale, zero_point,
               [in = x.data_ptr<float>(), out = y.data_ptr<std::uint8_t>()](
                   std::int64_t begin, std::int64_t n, float s, float z) {
                 quantizeBytes(in + begin, out + begin, n, s, z);
               });
  return y;
}

at::Tensor dequantize(const at::Tensor& y, const at::Tensor& scale,
                      const at::Tensor& zero_point) {
  return scale * (y.to(at::kFloat) - zero_point);
}

void accumulateDequantized(const at::Tensor& sum, const at::Tensor& y,
                           const at::Tensor& scale,
                           const at::Tensor& zero_point) {
  if (!inGroups(y, at::kByte, scale, zero_point) ||
      sum.scalar_type() != at::kFloat || !sum.is_contiguous() ||
      sum.sizes() != y.sizes()) {
    sum.add_(dequantize(y, scale, zero_point));
    return;
  }
  forEachGroup(y.numel(), scale, zero_point,
               [in = y.data_ptr<std::uint8_t>(), out = sum.data_ptr<float>()](
                   std::int64_t begin, std::int64_t n, float s, float z) {
                 accumulateDequantizedBytes(in + begin, out + begin, n, s, z);
               });
}

}  // namespace distalgo::hooks::internal
