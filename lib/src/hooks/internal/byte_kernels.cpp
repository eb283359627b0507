#include "hooks/internal/byte_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "quantization/internal/half_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace distalgo::hooks::internal {
namespace {

constexpr float kByteMax = 255;

void quantizeBytesScalar(const float* x, std::uint8_t* y, std::int64_t n,
                         float scale, float zero_point) {
  for (std::int64_t i = 0; i < n; ++i) {
    // std::nearbyint rounds half to even in the default rounding mode, as
    // at::round does.
    const float q = std::nearbyint(x[i] / scale) + zero_point;
    // A NaN becomes 0, as in the vectorised kernel.
    y[i] = static_cast<std::uint8_t>(q > 0 ? std::min(q, kByteMax) : 0);
  }
}

void accumulateDequantizedScalar(const std::uint8_t* y, float* sum,
                                 std::int64_t n, float scale,
                                 float zero_point) {
  for (std::int64_t i = 0; i < n; ++i) {
    sum[i] += scale * (static_cast<float>(y[i]) - zero_point);
  }
}

#if defined(__x86_64__)
#define DISTALGO_AVX2 __attribute__((target("avx2")))

// Eight bytes' worth of rounded, clamped lanes as 32-bit integers.
DISTALGO_AVX2 __m256i byteLanes(const float* x, __m256 scale,
                                __m256 zero_point) {
  const __m256 rounded =
      _mm256_round_ps(_mm256_div_ps(_mm256_loadu_ps(x), scale),
                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 clamped = _mm256_min_ps(
      _mm256_max_ps(_mm256_add_ps(rounded, zero_point), _mm256_setzero_ps()),
      _mm256_set1_ps(kByteMax));
  return _mm256_cvtps_epi32(clamped);
}

DISTALGO_AVX2 void quantizeBytesAvx2(const float* x, std::uint8_t* y,
                                     std::int64_t n, float scale,
                                     float zero_point) {
  const __m256 s = _mm256_set1_ps(scale);
  const __m256 z = _mm256_set1_ps(zero_point);
  // packus works within 128-bit halves; this puts the bytes back in order.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  std::int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i ab =
        _mm256_packus_epi32(byteLanes(x + i, s, z), byteLanes(x + i + 8, s, z));
    const __m256i cd = _mm256_packus_epi32(byteLanes(x + i + 16, s, z),
                                           byteLanes(x + i + 24, s, z));
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(y + i),
        _mm256_permutevar8x32_epi32(_mm256_packus_epi16(ab, cd), order));
  }
  quantizeBytesScalar(x + i, y + i, n - i, scale, zero_point);
}

DISTALGO_AVX2 void accumulateDequantizedAvx2(const std::uint8_t* y, float* sum,
                                             std::int64_t n, float scale,
                                             float zero_point) {
  const __m256 s = _mm256_set1_ps(scale);
  const __m256 z = _mm256_set1_ps(zero_point);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 values = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(
        _mm_loadl_epi64(reinterpret_cast<const __m128i*>(y + i))));
    // Multiply, then add: no fused multiply-add, as ATen's two operations.
    const __m256 term = _mm256_mul_ps(s, _mm256_sub_ps(values, z));
    _mm256_storeu_ps(sum + i, _mm256_add_ps(_mm256_loadu_ps(sum + i), term));
  }
  accumulateDequantizedScalar(y + i, sum + i, n - i, scale, zero_point);
}
#undef DISTALGO_AVX2
#else
// No vectorised kernels: vectorised() is false and these are never chosen.
constexpr auto quantizeBytesAvx2 = quantizeBytesScalar;
constexpr auto accumulateDequantizedAvx2 = accumulateDequantizedScalar;
#endif

}  // namespace

void quantizeBytes(const float* x, std::uint8_t* y, std::int64_t n, float scale,
                   float zero_point) {
  quantization::internal::vectorised()
      ? quantizeBytesAvx2(x, y, n, scale, zero_point)
      : quantizeBytesScalar(x, y, n, scale, zero_point);
}

void accumulateDequantizedBytes(const std::uint8_t* y, float* sum,
                                std::int64_t n, float scale, float zero_point) {
  quantization::internal::vectorised()
      ? accumulateDequantizedAvx2(y, sum, n, scale, zero_point)
      : accumulateDequantizedScalar(y, sum, n, scale, zero_point);
}

}  // namespace distalgo::hooks::internal
