#pragma once

// The quantization hooks' affine uint8 coding over raw arrays, one pass
// each: vectorised (AVX2) where the CPU has it, chosen once at run time, and
// plain loops otherwise. Both give the bits of quantize.h's tensor formulas.

#include <cstdint>

namespace distalgo::hooks::internal {

// y = clamp(round(x / scale) + zero_point, 0, 255), rounding half to even.
void quantizeBytes(const float* x, std::uint8_t* y, std::int64_t n, float scale,
                   float zero_point);
// sum += scale * (y - zero_point), in float32.
void accumulateDequantizedBytes(const std::uint8_t* y, float* sum,
                                std::int64_t n, float scale, float zero_point);

}  // namespace distalgo::hooks::internal
