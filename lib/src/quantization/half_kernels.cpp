#include "quantization/internal/half_kernels.h"

#include <ATen/Parallel.h>
#include <ATen/ops/empty.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <bit>

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace distalgo::quantization::internal {
namespace {

constexpr float kHalfMax = 65504;
constexpr std::uint32_t kAbsMask = 0x7FFFFFFF;
constexpr std::uint32_t kInfBits = 0x7F800000;
constexpr std::uint16_t kQuietBit = 0x0040;
// Elements per task when coding in parallel.
constexpr std::int64_t kGrain = 1 << 15;

// Whether ATen's float-to-float16 cast keeps a NaN's payload (its top bits,
// made quiet, as F16C does: libtorch 2.x) or makes every NaN 0x7E00 with its
// sign (1.13, as c10::Half does). The codecs follow the libtorch built
// against, bit for bit.
bool halfKeepsNanPayload() {
  static const bool keeps = [] {
    const float nan = std::bit_cast<float>(std::uint32_t{0x7FA00000});
    const at::Tensor word = at::empty({1}, at::kFloat).fill_(nan).to(at::kHalf);
    return word.view(at::kShort).item<std::int16_t>() != 0x7E00;
  }();
  return keeps;
}

// The float16 word of `x`, as ATen's cast makes it.
std::uint16_t halfWord(float x) {
  const auto bits = std::bit_cast<std::uint32_t>(x);
  if ((bits & kAbsMask) > kInfBits && halfKeepsNanPayload()) {
    return static_cast<std::uint16_t>(((bits >> 16) & 0x8000) | 0x7E00 |
                                      ((bits >> 13) & 0x3FF));
  }
  return c10::Half(x).x;
}

std::uint16_t clampedHalfWord(float x) {
  // std::clamp leaves a NaN as it is: every comparison with it is false.
  return halfWord(std::clamp(x, -kHalfMax, kHalfMax));
}

std::uint16_t bfp16Word(std::uint32_t bits) {
  // The NaN's top bits may all be zero below the exponent; the quiet bit
  // keeps the word a NaN.
  return (bits & kAbsMask) > kInfBits
             ? static_cast<std::uint16_t>((bits >> 16) | kQuietBit)
             : static_cast<std::uint16_t>((bits + 0x8000u) >> 16);
}

void floatToClampedHalfScalar(const float* in, std::uint16_t* out,
                              std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = clampedHalfWord(in[i]);
}

void floatToHalfScalar(const float* in, std::uint16_t* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = halfWord(in[i]);
}

void halfToFloatScalar(const std::uint16_t* in, float* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<float>(c10::Half(in[i], c10::Half::from_bits()));
  }
}

void floatToBfloat16Scalar(const float* in, std::uint16_t* out,
                           std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = c10::BFloat16(in[i]).x;
}

void floatToBfp16Scalar(const float* in, std::uint16_t* out, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    out[i] = bfp16Word(std::bit_cast<std::uint32_t>(in[i]));
  }
}

void bfloat16ToFloatScalar(const std::uint16_t* in, float* out,
                           std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    out[i] = std::bit_cast<float>(static_cast<std::uint32_t>(in[i]) << 16);
  }
}

void accumulateHalfScalar(const std::uint16_t* in, float* sum, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    sum[i] += static_cast<float>(c10::Half(in[i], c10::Half::from_bits()));
  }
}

void accumulateBfloat16Scalar(const std::uint16_t* in, float* sum,
                              std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    sum[i] += std::bit_cast<float>(static_cast<std::uint32_t>(in[i]) << 16);
  }
}

#if defined(__x86_64__)
#define DISTALGO_AVX2 __attribute__((target("avx2,f16c")))

// Eight 32-bit lanes that each hold a 16-bit word, and eight more, stored as
// sixteen words in lane order (packus interleaves the 128-bit halves).
DISTALGO_AVX2 void storeWords(std::uint16_t* out, __m256i low, __m256i high) {
  const __m256i packed = _mm256_packus_epi32(low, high);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                      _mm256_permute4x64_epi64(packed, 0xD8));
}

DISTALGO_AVX2 __m256i nanLanes(__m256 x) {
  return _mm256_castps_si256(_mm256_cmp_ps(x, x, _CMP_UNORD_Q));
}

DISTALGO_AVX2 __m128i halfWords(__m256 x, bool keep_nan_payload) {
  if (keep_nan_payload) {
    return _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  }
  const __m256 nan = _mm256_cmp_ps(x, x, _CMP_UNORD_Q);
  // F16C keeps a NaN's payload; 1.13's c10::Half makes every NaN 0x7E00 with
  // its sign, which is what a quiet float NaN without payload converts to.
  const __m256i sign =
      _mm256_and_si256(_mm256_castps_si256(x), _mm256_set1_epi32(INT32_MIN));
  const __m256 plain_nan =
      _mm256_castsi256_ps(_mm256_or_si256(sign, _mm256_set1_epi32(0x7FC00000)));
  return _mm256_cvtps_ph(_mm256_blendv_ps(x, plain_nan, nan),
                         _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}

// `x` clamped to [-65504, 65504] when `clamp`; min/max return their second
// operand when either is NaN, so a NaN stays NaN.
DISTALGO_AVX2 __m256 limited(__m256 x, bool clamp) {
  return clamp ? _mm256_max_ps(_mm256_set1_ps(-kHalfMax),
                               _mm256_min_ps(_mm256_set1_ps(kHalfMax), x))
               : x;
}

// float16 words of `in`, clamped first or not: the branch is the same every
// round.
DISTALGO_AVX2 void floatsToHalfAvx2(const float* in, std::uint16_t* out,
                                    std::int64_t n, bool clamp) {
  const bool keep = halfKeepsNanPayload();
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i low =
        halfWords(limited(_mm256_loadu_ps(in + i), clamp), keep);
    const __m128i high =
        halfWords(limited(_mm256_loadu_ps(in + i + 8), clamp), keep);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm256_set_m128i(high, low));
  }
  (clamp ? floatToClampedHalfScalar : floatToHalfScalar)(in + i, out + i,
                                                         n - i);
}

DISTALGO_AVX2 void floatToClampedHalfAvx2(const float* in, std::uint16_t* out,
                                          std::int64_t n) {
  floatsToHalfAvx2(in, out, n, /*clamp=*/true);
}

DISTALGO_AVX2 void floatToHalfAvx2(const float* in, std::uint16_t* out,
                                   std::int64_t n) {
  floatsToHalfAvx2(in, out, n, /*clamp=*/false);
}

DISTALGO_AVX2 void halfToFloatAvx2(const std::uint16_t* in, float* out,
                                   std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i words =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(_mm256_castsi256_si128(words)));
    _mm256_storeu_ps(out + i + 8,
                     _mm256_cvtph_ps(_mm256_extracti128_si256(words, 1)));
  }
  halfToFloatScalar(in + i, out + i, n - i);
}

// c10::BFloat16's round to nearest even, NaN as 0x7FC0, in 32-bit lanes.
DISTALGO_AVX2 __m256i bfloat16Lanes(const float* in) {
  const __m256 x = _mm256_loadu_ps(in);
  const __m256i bits = _mm256_castps_si256(x);
  const __m256i odd =
      _mm256_and_si256(_mm256_srli_epi32(bits, 16), _mm256_set1_epi32(1));
  const __m256i rounded = _mm256_srli_epi32(
      _mm256_add_epi32(bits, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7FFF))),
      16);
  return _mm256_blendv_epi8(rounded, _mm256_set1_epi32(0x7FC0), nanLanes(x));
}

DISTALGO_AVX2 void floatToBfloat16Avx2(const float* in, std::uint16_t* out,
                                       std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    storeWords(out + i, bfloat16Lanes(in + i), bfloat16Lanes(in + i + 8));
  }
  floatToBfloat16Scalar(in + i, out + i, n - i);
}

// bfp16Word in 32-bit lanes.
DISTALGO_AVX2 __m256i bfp16Lanes(const float* in) {
  const __m256 x = _mm256_loadu_ps(in);
  const __m256i bits = _mm256_castps_si256(x);
  const __m256i rounded =
      _mm256_srli_epi32(_mm256_add_epi32(bits, _mm256_set1_epi32(0x8000)), 16);
  const __m256i quiet_nan = _mm256_or_si256(_mm256_srli_epi32(bits, 16),
                                            _mm256_set1_epi32(kQuietBit));
  return _mm256_blendv_epi8(rounded, quiet_nan, nanLanes(x));
}

DISTALGO_AVX2 void floatToBfp16Avx2(const float* in, std::uint16_t* out,
                                    std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    storeWords(out + i, bfp16Lanes(in + i), bfp16Lanes(in + i + 8));
  }
  floatToBfp16Scalar(in + i, out + i, n - i);
}

DISTALGO_AVX2 void bfloat16ToFloatAvx2(const std::uint16_t* in, float* out,
                                       std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i words =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m256i low = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(words));
    const __m256i high =
        _mm256_cvtepu16_epi32(_mm256_extracti128_si256(words, 1));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i),
                        _mm256_slli_epi32(low, 16));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i + 8),
                        _mm256_slli_epi32(high, 16));
  }
  bfloat16ToFloatScalar(in + i, out + i, n - i);
}
DISTALGO_AVX2 void accumulateHalfAvx2(const std::uint16_t* in, float* sum,
                                      std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 values = _mm256_cvtph_ps(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
    _mm256_storeu_ps(sum + i, _mm256_add_ps(_mm256_loadu_ps(sum + i), values));
  }
  accumulateHalfScalar(in + i, sum + i, n - i);
}

DISTALGO_AVX2 void accumulateBfloat16Avx2(const std::uint16_t* in, float* sum,
                                          std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i words = _mm256_cvtepu16_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i)));
    const __m256 values = _mm256_castsi256_ps(_mm256_slli_epi32(words, 16));
    _mm256_storeu_ps(sum + i, _mm256_add_ps(_mm256_loadu_ps(sum + i), values));
  }
  accumulateBfloat16Scalar(in + i, sum + i, n - i);
}
#undef DISTALGO_AVX2
#else
// No vectorised kernels: vectorised() is false and these are never chosen.
constexpr auto floatToClampedHalfAvx2 = floatToClampedHalfScalar;
constexpr auto floatToHalfAvx2 = floatToHalfScalar;
constexpr auto halfToFloatAvx2 = halfToFloatScalar;
constexpr auto floatToBfloat16Avx2 = floatToBfloat16Scalar;
constexpr auto floatToBfp16Avx2 = floatToBfp16Scalar;
constexpr auto bfloat16ToFloatAvx2 = bfloat16ToFloatScalar;
constexpr auto accumulateHalfAvx2 = accumulateHalfScalar;
constexpr auto accumulateBfloat16Avx2 = accumulateBfloat16Scalar;
#endif

}  // namespace

bool vectorised() {
#if defined(__x86_64__)
  // F16C from CPUID leaf 1 (ECX): not every compiler's
  // __builtin_cpu_supports knows it.
  static const bool has = [] {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    return __builtin_cpu_supports("avx2") &&
           __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
  }();
  return has;
#else
  return false;
#endif
}

void floatToClampedHalf(const float* in, std::uint16_t* out, std::int64_t n) {
  vectorised() ? floatToClampedHalfAvx2(in, out, n)
               : floatToClampedHalfScalar(in, out, n);
}

void floatToHalf(const float* in, std::uint16_t* out, std::int64_t n) {
  vectorised() ? floatToHalfAvx2(in, out, n) : floatToHalfScalar(in, out, n);
}

void halfToFloat(const std::uint16_t* in, float* out, std::int64_t n) {
  vectorised() ? halfToFloatAvx2(in, out, n) : halfToFloatScalar(in, out, n);
}

void floatToBfloat16(const float* in, std::uint16_t* out, std::int64_t n) {
  vectorised() ? floatToBfloat16Avx2(in, out, n)
               : floatToBfloat16Scalar(in, out, n);
}

void floatToBfp16(const float* in, std::uint16_t* out, std::int64_t n) {
  vectorised() ? floatToBfp16Avx2(in, out, n) : floatToBfp16Scalar(in, out, n);
}

void bfloat16ToFloat(const std::uint16_t* in, float* out, std::int64_t n) {
  vectorised() ? bfloat16ToFloatAvx2(in, out, n)
               : bfloat16ToFloatScalar(in, out, n);
}

void accumulateHalf(const std::uint16_t* in, float* sum, std::int64_t n) {
  vectorised() ? accumulateHalfAvx2(in, sum, n)
               : accumulateHalfScalar(in, sum, n);
}

void accumulateBfloat16(const std::uint16_t* in, float* sum, std::int64_t n) {
  vectorised() ? accumulateBfloat16Avx2(in, sum, n)
               : accumulateBfloat16Scalar(in, sum, n);
}

at::Tensor encodeFloats(const at::Tensor& values, at::ScalarType dtype,
                        EncodeKernel encode) {
  at::Tensor words = at::empty(values.sizes(), values.options().dtype(dtype));
  encodeInto(values, words, encode);
  return words;
}

void encodeInto(const at::Tensor& values, const at::Tensor& words,
                EncodeKernel encode) {
  const float* in = values.data_ptr<float>();
  auto* out = static_cast<std::uint16_t*>(words.data_ptr());
  at::parallel_for(0, values.numel(), kGrain,
                   [in, out, encode](std::int64_t begin, std::int64_t end) {
                     encode(in + begin, out + begin, end - begin);
                   });
}

void decodeWords(const at::Tensor& words, const at::Tensor& values,
                 DecodeKernel decode) {
  const auto* in = static_cast<const std::uint16_t*>(words.data_ptr());
  float* out = values.data_ptr<float>();
  at::parallel_for(0, words.numel(), kGrain,
                   [in, out, decode](std::int64_t begin, std::int64_t end) {
                     decode(in + begin, out + begin, end - begin);
                   });
}

}  // namespace distalgo::quantization::internal
