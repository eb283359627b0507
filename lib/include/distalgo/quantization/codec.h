#pragma once

// Quantizing a tensor for the wire and back: PyTorch's _quantize_tensor and
// _dequantize_tensor (torch/distributed/algorithms/_quantization).
//
// FP16: clamp to [-65504, 65504], then round to float16 (to nearest even).
// ±inf become ±65504 and NaN stays NaN. Error: at most 2^-11 relative for
// |x| in [2^-14, 65504], at most 2^-25 absolute below 2^-14 (subnormals);
// beyond ±65504 the value is clamped.
//
// BFP16: bit-compatible with PyTorch's quantization::_FloatToBfloat16Quantized:
// the 16-bit word of a float32 x is (bits(x) + 0x8000) >> 16 computed in
// uint32, so a halfway case rounds up in magnitude (not to even), and a
// magnitude from 0x7F7F8000 (about 3.39e38) up, the largest float included,
// becomes inf. A word w decodes to the float32 whose bits are w << 16.
// Error: at most 2^-8 relative for normal values.
//
// Deviations from PyTorch, both deliberate:
// - Any shape is accepted; PyTorch's BFP16 accepts only 2-D tensors.
// - NaN stays a NaN: its word is (bits(x) >> 16) | 0x0040, a quiet NaN with
//   x's sign. PyTorch's uint32 sum wraps or truncates some NaN patterns into
//   numbers: 0x7FFFFFFF becomes 0x8000 (-0.0), 0xFFFFFFFF 0x0000 (+0.0), and
//   0x7F800001 0x7F80 (+inf).
// Inputs of any floating dtype are converted to float32 first (PyTorch's
// BFP16 requires float32). Results are float32. Tensors on a device other
// than the CPU are coded on a CPU copy and moved back (FP16 on a GPU: with
// ATen's own clamp and cast there). On the CPU both types are coded by
// vectorised kernels where the CPU has AVX2 and F16C, with the same bits.

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>

#include "distalgo/quantization/dquant_type.h"

namespace distalgo::quantization {

// The BFP16 word of one float, as quantizeTensor computes it.
std::uint16_t bfp16Word(float x);
// The float a BFP16 word decodes to.
float bfp16Value(std::uint16_t word);

// `tensor` in `qtype`: a contiguous float16 tensor of the same shape (for
// BFP16 its elements hold the bfloat16 words). Throws std::invalid_argument
// for a tensor that is not floating point.
at::Tensor quantizeTensor(const at::Tensor& tensor, DQuantType qtype);

// quantizeTensor's words written into `words` (a float16 tensor of the
// tensor's shape): straight from a contiguous float32 CPU tensor into
// contiguous CPU words, without a fresh tensor. Throws std::invalid_argument
// for a tensor that is not floating point or words of another dtype or
// shape.
void quantizeInto(const at::Tensor& tensor, DQuantType qtype,
                  const at::Tensor& words);

// The float32 values of a quantized tensor, divided by `quant_loss` when
// given. Throws std::invalid_argument when `tensor` is not float16, the
// dtype quantizeTensor returns for both types.
at::Tensor dequantizeTensor(const at::Tensor& tensor, DQuantType qtype,
                            std::optional<double> quant_loss = std::nullopt);

// dequantizeTensor's values written into `output` (its shape, any floating
// dtype): straight into a contiguous float32 CPU tensor, without an
// intermediate one. Throws as dequantizeTensor.
void dequantizeInto(const at::Tensor& tensor, DQuantType qtype,
                    const at::Tensor& output,
                    std::optional<double> quant_loss = std::nullopt);

}  // namespace distalgo::quantization
