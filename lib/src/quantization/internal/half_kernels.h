#pragma once

// Conversions between float32 and the 16-bit words of the codecs and sums,
// over raw arrays: vectorised (AVX2 and F16C) where the CPU has them, chosen
// once at run time, and plain loops otherwise. Both give the same bits.

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace distalgo::quantization::internal {

// float16 after clamping to [-65504, 65504] (quantizeTensor's FP16), by
// round to nearest even as c10::Half; NaN becomes 0x7E00 with its sign.
void floatToClampedHalf(const float* in, std::uint16_t* out, std::int64_t n);
// float16 as c10::Half: overflow becomes an infinity; NaN as above.
void floatToHalf(const float* in, std::uint16_t* out, std::int64_t n);
// float16 words to float32, exactly (NaN payloads kept, quieted).
void halfToFloat(const std::uint16_t* in, float* out, std::int64_t n);
// bfloat16 by round to nearest even, as c10::BFloat16: NaN becomes 0x7FC0.
void floatToBfloat16(const float* in, std::uint16_t* out, std::int64_t n);
// BFP16 words (codec.h): (bits + 0x8000) >> 16, NaN kept a quiet NaN.
void floatToBfp16(const float* in, std::uint16_t* out, std::int64_t n);
// bfloat16 or BFP16 words to float32: the word is the float's top half.
void bfloat16ToFloat(const std::uint16_t* in, float* out, std::int64_t n);
// sum[i] += the float32 of word i, for float16 and for bfloat16 words.
void accumulateHalf(const std::uint16_t* in, float* sum, std::int64_t n);
void accumulateBfloat16(const std::uint16_t* in, float* sum, std::int64_t n);

// Whether the vectorised kernels run on this CPU.
bool vectorised();

using EncodeKernel = void (*)(const float*, std::uint16_t*, std::int64_t);
using DecodeKernel = void (*)(const std::uint16_t*, float*, std::int64_t);

// One 16-bit format: its rounding from float32, its float32 value, and the
// sum of its values into float32 (DecodeKernel's signature, adding).
struct WordFormat {
  EncodeKernel encode;
  DecodeKernel decode;
  DecodeKernel accumulate;
};
// bfloat16 rounded to nearest even; float16 rounded, and clamped (FP16);
// float16 rounded as ATen casts (the fp16 compression hook's sums).
inline constexpr WordFormat kBfloat16Format{&floatToBfloat16, &bfloat16ToFloat,
                                            &accumulateBfloat16};
inline constexpr WordFormat kClampedHalfFormat{&floatToClampedHalf,
                                               &halfToFloat, &accumulateHalf};
inline constexpr WordFormat kHalfFormat{&floatToHalf, &halfToFloat,
                                        &accumulateHalf};

// Writes `encode` of the float32, contiguous CPU tensor `values` into the
// contiguous CPU 16-bit tensor `words` of as many elements, in parallel
// chunks.
void encodeInto(const at::Tensor& values, const at::Tensor& words,
                EncodeKernel encode);
// The same into a new tensor of `dtype` (a 16-bit type).
at::Tensor encodeFloats(const at::Tensor& values, at::ScalarType dtype,
                        EncodeKernel encode);
// Writes `decode` of the contiguous CPU 16-bit tensor `words` into the
// float32, contiguous CPU tensor `values` of as many elements.
void decodeWords(const at::Tensor& words, const at::Tensor& values,
                 DecodeKernel decode);

}  // namespace distalgo::quantization::internal
