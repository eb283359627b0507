// The vectorised codecs against ATen's own conversions, bit for bit: every
// float16 and bfloat16 word, random float32 bit patterns of every kind (NaN
// payloads, infinities, subnormals, halfway cases), lengths that leave a
// tail; and quantizeInto / dequantizeInto against the allocating calls.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "distalgo/quantization/codec.h"

namespace {

namespace q = distalgo::quantization;

// Float32 bit patterns: random ones of every kind, then the edges of both
// 16-bit formats, `tail` more than a multiple of the vector width.
at::Tensor floatPatterns(std::int64_t tail) {
  const at::Tensor random = at::randint(
      std::numeric_limits<std::int32_t>::min(),
      std::numeric_limits<std::int32_t>::max(), {(1 << 18) + tail}, at::kInt);
  std::vector<std::uint32_t> edges = {
      0x00000000, 0x80000000, 0x7F800000, 0xFF800000,  // zeros, infinities
      0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF,  // NaNs
      0x7FA00000, 0x7FFFE000, 0x00000001, 0x807FFFFF,  // payloads, subnormals
      0x477FE000, 0x477FEFFF, 0x477FF000, 0x477FF001,  // 65504 .. overflow
      0x33800000, 0x33000000, 0x33000001, 0x387FC000,  // half subnormal edge
      0x3F808000, 0x3F818000, 0x3F807FFF, 0x7F7F8000,  // bfloat16 halfway
      0x7F7FFFFF, 0xC77FF000, 0x3F800FFF, 0x3F801000};
  at::Tensor edge_tensor =
      at::from_blob(edges.data(), {static_cast<std::int64_t>(edges.size())},
                    at::kInt)
          .clone();
  return at::cat({edge_tensor, random}).view(at::kFloat);
}

// Every 16-bit word, as a tensor of `dtype`.
at::Tensor everyWord(at::ScalarType dtype) {
  return at::arange(0, 1 << 16, at::kInt).to(at::kShort).view(dtype);
}

// Element i where `a` and `b` differ in their bits, or -1.
std::int64_t firstDifference(const at::Tensor& a, const at::Tensor& b) {
  const at::ScalarType bits = a.element_size() == 2 ? at::kShort : at::kInt;
  const at::Tensor differ = a.view(bits).ne(b.view(bits)).nonzero();
  return differ.numel() == 0 ? -1 : differ[0][0].item<std::int64_t>();
}

void expectSameBits(const at::Tensor& actual, const at::Tensor& expected,
                    const at::Tensor& input) {
  ASSERT_EQ(actual.sizes(), expected.sizes());
  ASSERT_EQ(actual.scalar_type(), expected.scalar_type());
  const std::int64_t i = firstDifference(actual, expected);
  const at::ScalarType in_bits =
      input.element_size() == 2 ? at::kShort : at::kInt;
  const at::ScalarType out_bits =
      actual.element_size() == 2 ? at::kShort : at::kInt;
  EXPECT_EQ(i, -1) << "element " << i << ": input bits 0x" << std::hex
                   << input.view(in_bits)[i].item<std::int64_t>() << ", got 0x"
                   << actual.view(out_bits)[i].item<std::int64_t>()
                   << ", ATen 0x"
                   << expected.view(out_bits)[i].item<std::int64_t>();
}

// Every float16 word decodes as ATen's float32 of it.
TEST(QuantizationFp16, EveryWordDecodesAsAtensFloat) {
  const at::Tensor words = everyWord(at::kHalf);
  expectSameBits(q::dequantizeTensor(words, q::DQuantType::FP16),
                 words.to(at::kFloat), words);
}

// quantizeTensor's FP16: clamp, then ATen's float16, for every kind of
// float.
TEST(QuantizationFp16, CodecIsAtensClampAndCastBitForBit) {
  for (std::int64_t tail : {0, 7}) {
    const at::Tensor x = floatPatterns(tail);
    expectSameBits(q::quantizeTensor(x, q::DQuantType::FP16),
                   at::clamp(x, -65504, 65504).to(at::kHalf), x);
  }
  const at::Tensor words = everyWord(at::kHalf);
  expectSameBits(q::dequantizeTensor(words, q::DQuantType::FP16),
                 words.to(at::kFloat), words);
}

// Into a float32 tensor (straight), a double one and a strided one (through
// dequantizeTensor): the same values, quant_loss included.
TEST(QuantizationCodec, DequantizeIntoWritesWhatDequantizeTensorReturns) {
  const at::Tensor x = at::randn({37});
  for (q::DQuantType qtype : {q::DQuantType::FP16, q::DQuantType::BFP16}) {
    SCOPED_TRACE(q::toString(qtype));
    const at::Tensor words = q::quantizeTensor(x, qtype);
    const at::Tensor expected = q::dequantizeTensor(words, qtype, 2.0);
    const at::Tensor flat = at::empty({37});
    q::dequantizeInto(words, qtype, flat, 2.0);
    expectSameBits(flat, expected, words);
    const at::Tensor doubles = at::empty({37}, at::kDouble);
    q::dequantizeInto(words, qtype, doubles, 2.0);
    EXPECT_TRUE(doubles.equal(expected.to(at::kDouble)));
    const at::Tensor strided = at::empty({74}).slice(0, 0, 74, 2);
    q::dequantizeInto(words, qtype, strided, 2.0);
    EXPECT_TRUE(strided.equal(expected));
    EXPECT_THROW(q::dequantizeInto(x, qtype, flat), std::invalid_argument);
  }
}

// Into contiguous words (straight) and from a double tensor (through
// quantizeTensor): quantizeTensor's words; a wrong dtype or shape throws.
TEST(QuantizationCodec, QuantizeIntoWritesWhatQuantizeTensorReturns) {
  const at::Tensor x = floatPatterns(5);
  for (q::DQuantType qtype : {q::DQuantType::FP16, q::DQuantType::BFP16}) {
    SCOPED_TRACE(q::toString(qtype));
    const at::Tensor words = at::empty(x.sizes(), at::kHalf);
    q::quantizeInto(x, qtype, words);
    expectSameBits(words, q::quantizeTensor(x, qtype), x);
    const at::Tensor doubles = at::randn({9}, at::kDouble);
    const at::Tensor nine = at::empty({9}, at::kHalf);
    q::quantizeInto(doubles, qtype, nine);
    expectSameBits(nine, q::quantizeTensor(doubles, qtype), doubles);
    EXPECT_THROW(q::quantizeInto(doubles, qtype, at::empty({8}, at::kHalf)),
                 std::invalid_argument);
    EXPECT_THROW(q::quantizeInto(doubles, qtype, at::empty({9})),
                 std::invalid_argument);
  }
}

// BFP16's decode: the word is the float's top half, for every word.
TEST(QuantizationBfp16, EveryWordDecodesToItsTopHalf) {
  const at::Tensor words = everyWord(at::kHalf);
  const at::Tensor expected = words.view(at::kShort)
                                  .to(at::kLong)
                                  .bitwise_and(0xFFFF)
                                  .mul(1 << 16)
                                  .to(at::kInt)
                                  .view(at::kFloat);
  expectSameBits(q::dequantizeTensor(words, q::DQuantType::BFP16), expected,
                 words);
}

}  // namespace
