#pragma once

// Affine uint8 quantization as PyTorch's quantization hooks compute it with
// torch.ao's MinMaxObserver (per tensor) and PerChannelMinMaxObserver (per
// row), in plain tensor operations so that it runs on CPU and on CUDA; on
// the CPU, quantize and accumulateDequantized run fused kernels with the
// same bits.

#include <ATen/core/Tensor.h>

namespace distalgo::hooks::internal {

// Scale and zero point, both float32: 0-dimensional per tensor, one per row
// per channel.
struct QuantParams {
  at::Tensor scale;
  at::Tensor zero_point;
};

// The observers' qparams for quint8 over 0..255 with the range widened to
// hold 0: scale = max((max(x, 0) - min(x, 0)) / 255, float32 epsilon),
// zero_point = clamp(-round(min(x, 0) / scale), 0, 255).
QuantParams minMaxParams(const at::Tensor& x);
// The same for each row of the 2-D `rows`.
QuantParams perRowMinMaxParams(const at::Tensor& rows);

// clamp(round(x / scale) + zero_point, 0, 255) as uint8, rounding half to
// even; `scale` and `zero_point` broadcast against `x`. The quotient is of
// x's type, as PyTorch's hooks divide the bucket: a 16-bit one is computed
// in float32 and rounded to 16 bits, by the scale rounded to 16 bits too
// except on the CPU with libtorch 2.x.
at::Tensor quantize(const at::Tensor& x, const at::Tensor& scale,
                    const at::Tensor& zero_point);
// scale * (y - zero_point) in float32.
at::Tensor dequantize(const at::Tensor& y, const at::Tensor& scale,
                      const at::Tensor& zero_point);
// sum += dequantize(y, scale, zero_point), in one pass for a float32 `sum`
// of y's shape.
void accumulateDequantized(const at::Tensor& sum, const at::Tensor& y,
                           const at::Tensor& scale,
                           const at::Tensor& zero_point);

}  // namespace distalgo::hooks::internal
