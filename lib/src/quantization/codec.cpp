#include "distalgo/quantization/codec.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <bit>
#include <string>

#include "internal/check.h"

namespace distalgo::quantization {
namespace {

constexpr double kFp16Max = 65504;
constexpr std::uint32_t kExponentMask = 0x7F800000;
constexpr std::uint32_t kMantissaMask = 0x007FFFFF;
constexpr std::uint16_t kQuietBit = 0x0040;
// Elements per task when coding in parallel.
constexpr std::int64_t kGrain = 1 << 15;

// The prefix of this file's error messages.
std::string where(DQuantType qtype) {
  return c10::str("distalgo::quantization (", toString(qtype), "): ");
}

std::uint16_t wordOfBits(std::uint32_t bits) {
  const bool nan =
      (bits & kExponentMask) == kExponentMask && (bits & kMantissaMask) != 0;
  // The NaN's top bits may all be zero below the exponent; the quiet bit
  // keeps the word a NaN.
  return nan ? static_cast<std::uint16_t>((bits >> 16) | kQuietBit)
             : static_cast<std::uint16_t>((bits + 0x8000u) >> 16);
}

// Maps each element of the CPU tensor `input` (read as In) through `fn` into
// a new CPU tensor of dtype `out_dtype` (written as Out), in parallel.
template <typename In, typename Out, typename Fn>
at::Tensor mapElements(const at::Tensor& input, at::ScalarType out_dtype,
                       Fn fn) {
  at::Tensor output =
      at::empty(input.sizes(), input.options().dtype(out_dtype));
  const auto* in = static_cast<const In*>(input.data_ptr());
  auto* out = static_cast<Out*>(output.data_ptr());
  at::parallel_for(0, input.numel(), kGrain,
                   [in, out, fn](std::int64_t begin, std::int64_t end) {
                     for (std::int64_t i = begin; i < end; ++i) {
                       out[i] = fn(in[i]);
                     }
                   });
  return output;
}

at::Tensor quantizeBfp16(const at::Tensor& tensor) {
  const at::Tensor input = tensor.to(at::kCPU, at::kFloat).contiguous();
  return mapElements<float, std::uint16_t>(input, at::kHalf,
                                           [](float x) { return bfp16Word(x); })
      .to(tensor.device());
}

at::Tensor dequantizeBfp16(const at::Tensor& tensor) {
  const at::Tensor words = tensor.to(at::kCPU).contiguous();
  return mapElements<std::uint16_t, float>(
             words, at::kFloat, [](std::uint16_t w) { return bfp16Value(w); })
      .to(tensor.device());
}

}  // namespace

std::uint16_t bfp16Word(float x) {
  return wordOfBits(std::bit_cast<std::uint32_t>(x));
}

float bfp16Value(std::uint16_t word) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(word) << 16);
}

at::Tensor quantizeTensor(const at::Tensor& tensor, DQuantType qtype) {
  DISTALGO_CHECK_ARG(at::isFloatingType(tensor.scalar_type()), where(qtype),
                     "quantizeTensor expects a floating-point tensor, got ",
                     tensor.scalar_type());
  if (qtype == DQuantType::BFP16) return quantizeBfp16(tensor);
  // clamp keeps NaN a NaN.
  return at::clamp(tensor.to(at::kFloat), -kFp16Max, kFp16Max)
      .to(at::kHalf)
      .contiguous();
}

at::Tensor dequantizeTensor(const at::Tensor& tensor, DQuantType qtype,
                            std::optional<double> quant_loss) {
  DISTALGO_CHECK_ARG(tensor.scalar_type() == at::kHalf, where(qtype),
                     "dequantizeTensor expects the float16 tensor "
                     "quantizeTensor returns, got ",
                     tensor.scalar_type());
  at::Tensor values = qtype == DQuantType::BFP16 ? dequantizeBfp16(tensor)
                                                 : tensor.to(at::kFloat);
  if (quant_loss) values.div_(*quant_loss);
  return values;
}

}  // namespace distalgo::quantization
