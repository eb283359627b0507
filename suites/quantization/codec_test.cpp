// The codecs alone: BFP16 bit for bit against PyTorch's words, NaN kept a
// NaN, and each type's round-trip error bound.

#include "distalgo/quantization/codec.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace {

using distalgo::quantization::bfp16Value;
using distalgo::quantization::bfp16Word;
using distalgo::quantization::dequantizeTensor;
using distalgo::quantization::DQuantType;
using distalgo::quantization::quantizeTensor;

float fromBits(std::uint32_t bits) { return std::bit_cast<float>(bits); }

// quantizeTensor's words for `values`, as unsigned 16-bit integers.
std::vector<std::uint16_t> tensorWords(const std::vector<float>& values) {
  const at::Tensor words =
      quantizeTensor(at::tensor(values), DQuantType::BFP16).view(at::kShort);
  std::vector<std::uint16_t> out;
  for (std::int64_t i = 0; i < words.numel(); ++i) {
    out.push_back(static_cast<std::uint16_t>(words[i].item<std::int16_t>()));
  }
  return out;
}

// Both paths (scalar and tensor) must give `expected` for the float with
// `bits`.
void expectWord(std::uint32_t bits, std::uint16_t expected) {
  SCOPED_TRACE(::testing::Message() << "bits 0x" << std::hex << bits);
  EXPECT_EQ(bfp16Word(fromBits(bits)), expected);
  EXPECT_EQ(tensorWords({fromBits(bits)}).at(0), expected);
}

// Printed by PyTorch 1.13: torch.ops.quantization._FloatToBfloat16Quantized
// on [[1, 2.5, 3.14159, -1e-3, 131008]], viewed as int16.
TEST(QuantizationBfp16, MatchesPyTorchsWords) {
  const at::Tensor input =
      at::tensor({1.0f, 2.5f, 3.14159f, -1e-3f, 131008.0f}).view({1, 5});
  const at::Tensor words =
      quantizeTensor(input, DQuantType::BFP16).view(at::kShort);
  EXPECT_EQ(words.sizes(), input.sizes());
  const std::vector<std::int16_t> expected{16256, 16416, 16457, -17789, 18432};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(words[0][i].item<std::int16_t>(), expected[i]) << "element " << i;
  }
  const at::Tensor decoded = dequantizeTensor(
      quantizeTensor(input, DQuantType::BFP16), DQuantType::BFP16);
  const std::vector<float> values{1.0f, 2.5f, 3.140625f, fromBits(0xBA830000u),
                                  131072.0f};
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(decoded[0][i].item<float>(), values[i]) << "element " << i;
  }
}

TEST(QuantizationBfp16, ZerosInfinitiesAndSubnormals) {
  expectWord(0x00000000u, 0x0000);  // +0
  expectWord(0x80000000u, 0x8000);  // -0
  expectWord(0x7F800000u, 0x7F80);  // +inf
  expectWord(0xFF800000u, 0xFF80);  // -inf
  expectWord(0x00000001u, 0x0000);  // smallest subnormal rounds to +0
  expectWord(0x80007FFFu, 0x8000);  // just below halfway: -0
  expectWord(0x00008000u, 0x0001);  // halfway: up to the smallest bf16
  expectWord(0x00400000u, 0x0040);  // exact subnormal
  expectWord(0x807FFFFFu, 0x8080);  // largest subnormal rounds to -FLT_MIN
}

TEST(QuantizationBfp16, HalfwayRoundsUpInMagnitudeNotToEven) {
  expectWord(0x3F808000u, 0x3F81);  // to even would be 0x3F80
  expectWord(0xBF808000u, 0xBF81);
  expectWord(0x3F818000u, 0x3F82);  // here even and up agree
  expectWord(0x3F807FFFu, 0x3F80);
}

TEST(QuantizationBfp16, RoundsAcrossAnExponent) {
  expectWord(0x3FFFFFFFu, 0x4000);  // 1.9999999 -> 2
  expectWord(0x3F7F8000u, 0x3F80);  // 0.99805 (halfway) -> 1
  expectWord(0xC07FC000u, 0xC080);  // -3.99 -> -4
  expectWord(0x7F7F7FFFu, 0x7F7F);  // stays the largest finite bfloat16
  expectWord(0x7F7F8000u, 0x7F80);  // overflows to inf
  expectWord(0x7F7FFFFFu, 0x7F80);  // the largest float: inf, as PyTorch
  expectWord(0xFF7FFFFFu, 0xFF80);
  EXPECT_EQ(bfp16Value(0x7F80), std::numeric_limits<float>::infinity());
}

// PyTorch turns 0x7FFFFFFF into -0.0, 0xFFFFFFFF into +0.0 and 0x7F800001
// into +inf; these stay NaN of the same sign.
TEST(QuantizationBfp16, NanStaysNan) {
  expectWord(0x7FC00000u, 0x7FC0);  // the default quiet NaN
  expectWord(0xFFC00000u, 0xFFC0);
  expectWord(0x7FFFFFFFu, 0x7FFF);
  expectWord(0xFFFFFFFFu, 0xFFFF);
  expectWord(0x7FFF8000u, 0x7FFF);
  expectWord(0x7F800001u, 0x7FC0);  // payload only in the dropped bits
  expectWord(0xFF800001u, 0xFFC0);
  expectWord(0x7F810000u, 0x7FC1);
  for (std::uint16_t word : {0x7FC0, 0xFFC0, 0x7FFF, 0xFFFF, 0x7FC1}) {
    EXPECT_TRUE(std::isnan(bfp16Value(word))) << std::hex << word;
  }
  const at::Tensor decoded = dequantizeTensor(
      quantizeTensor(at::tensor({fromBits(0x7FFFFFFFu), fromBits(0xFF800001u)}),
                     DQuantType::BFP16),
      DQuantType::BFP16);
  EXPECT_TRUE(std::isnan(decoded[0].item<float>()));
  EXPECT_TRUE(std::isnan(decoded[1].item<float>()));
  EXPECT_TRUE(std::signbit(decoded[1].item<float>()));
}

// Random bit patterns of every kind: the tensor path equals the scalar one,
// and both equal PyTorch's formula wherever the input is not a NaN.
TEST(QuantizationBfp16, EveryBitPatternFollowsTheFormula) {
  const at::Tensor bits = at::randint(std::numeric_limits<std::int32_t>::min(),
                                      std::numeric_limits<std::int32_t>::max(),
                                      {1 << 16}, at::kInt);
  const at::Tensor words =
      quantizeTensor(bits.view(at::kFloat), DQuantType::BFP16).view(at::kShort);
  const auto* in = bits.data_ptr<std::int32_t>();
  const auto* out = words.data_ptr<std::int16_t>();
  int mismatches = 0;
  for (std::int64_t i = 0; i < bits.numel() && mismatches < 5; ++i) {
    const auto u = static_cast<std::uint32_t>(in[i]);
    const auto word = static_cast<std::uint16_t>(out[i]);
    const float x = fromBits(u);
    const auto pytorch = static_cast<std::uint16_t>((u + 0x8000u) >> 16);
    if (word != bfp16Word(x) || (!std::isnan(x) && word != pytorch) ||
        std::isnan(x) != std::isnan(bfp16Value(word))) {
      ADD_FAILURE() << "bits 0x" << std::hex << u << ": word 0x" << word;
      ++mismatches;
    }
  }
}

TEST(QuantizationBfp16, AcceptsAnyShape) {
  for (const auto& sizes :
       std::vector<std::vector<std::int64_t>>{{}, {7}, {2, 3, 4}, {0, 3}}) {
    const at::Tensor x = at::randn(sizes);
    const at::Tensor q = quantizeTensor(x, DQuantType::BFP16);
    EXPECT_EQ(q.sizes(), x.sizes());
    EXPECT_EQ(q.scalar_type(), at::kHalf);
    EXPECT_EQ(dequantizeTensor(q, DQuantType::BFP16).sizes(), x.sizes());
  }
}

// Normal floats from 2^-126 to 2^127, both signs: |x - q(x)| <= 2^-8 |x|.
TEST(QuantizationBfp16, RoundTripWithinTwoToTheMinusEightRelative) {
  const at::Tensor mantissa = at::rand({1 << 14}) + 1;  // [1, 2)
  const at::Tensor exponent = at::randint(-126, 127, {1 << 14});
  const at::Tensor sign = at::randint(0, 2, {1 << 14}) * 2 - 1;
  const at::Tensor x = sign * at::ldexp(mantissa, exponent);
  const at::Tensor back =
      dequantizeTensor(quantizeTensor(x, DQuantType::BFP16), DQuantType::BFP16);
  const at::Tensor relative =
      ((back.to(at::kDouble) - x.to(at::kDouble)).abs() /
       x.to(at::kDouble).abs());
  EXPECT_LE(relative.max().item<double>(), std::ldexp(1.0, -8));
}

TEST(QuantizationFp16, ClampsToTheLargestHalfAndKeepsNan) {
  const float inf = std::numeric_limits<float>::infinity();
  const at::Tensor x = at::tensor({1e6f, -1e6f, inf, -inf, 65504.0f,
                                   std::numeric_limits<float>::quiet_NaN()});
  const at::Tensor back =
      dequantizeTensor(quantizeTensor(x, DQuantType::FP16), DQuantType::FP16);
  const std::vector<float> expected{65504, -65504, 65504, -65504, 65504};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(back[i].item<float>(), expected[i]) << "element " << i;
  }
  EXPECT_TRUE(std::isnan(back[5].item<float>()));
}

// |x| in [2^-14, 65504]: 2^-11 relative; below (subnormal halves): 2^-25
// absolute.
TEST(QuantizationFp16, RoundTripWithinTheHalfBound) {
  const at::Tensor mantissa = at::rand({1 << 14}, at::kDouble) + 1;
  const at::Tensor exponent = at::randint(-30, 16, {1 << 14});
  const at::Tensor x = at::clamp(at::ldexp(mantissa, exponent), 0, 65504)
                           .to(at::kFloat)
                           .mul_(at::randint(0, 2, {1 << 14}) * 2 - 1);
  const at::Tensor back =
      dequantizeTensor(quantizeTensor(x, DQuantType::FP16), DQuantType::FP16);
  const at::Tensor error = (back.to(at::kDouble) - x.to(at::kDouble)).abs();
  const at::Tensor bound =
      at::where(x.abs() >= std::ldexp(1.0f, -14),
                x.to(at::kDouble).abs() * std::ldexp(1.0, -11),
                at::full_like(error, std::ldexp(1.0, -25)));
  EXPECT_TRUE((error <= bound).all().item<bool>())
      << "worst excess " << (error - bound).max().item<double>();
}

TEST(QuantizationCodec, DividesByTheQuantLoss) {
  const at::Tensor x = at::tensor({2.0f, -6.0f});
  for (DQuantType qtype : {DQuantType::FP16, DQuantType::BFP16}) {
    const at::Tensor back = dequantizeTensor(quantizeTensor(x, qtype), qtype,
                                             /*quant_loss=*/2.0);
    EXPECT_TRUE(back.equal(at::tensor({1.0f, -3.0f})));
  }
}

TEST(QuantizationCodec, RejectsWrongDtypes) {
  for (DQuantType qtype : {DQuantType::FP16, DQuantType::BFP16}) {
    EXPECT_THROW(quantizeTensor(at::ones({2}, at::kInt), qtype),
                 std::invalid_argument);
    EXPECT_THROW(dequantizeTensor(at::ones({2}), qtype), std::invalid_argument);
  }
  // Other floating dtypes go through float32.
  EXPECT_EQ(quantizeTensor(at::ones({2}, at::kDouble), DQuantType::BFP16)
                .view(at::kShort)[0]
                .item<std::int16_t>(),
            16256);
}

}  // namespace
