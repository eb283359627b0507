#include "distalgo/quantization/codec.h"

#include <ATen/ATen.h>

#include <bit>
#include <string>

#include "internal/check.h"
#include "quantization/internal/half_kernels.h"

namespace distalgo::quantization {
namespace {

constexpr double kFp16Max = 65504;

// The prefix of this file's error messages.
std::string where(DQuantType qtype) {
  return c10::str("distalgo::quantization (", toString(qtype), "): ");
}

internal::EncodeKernel encoderOf(DQuantType qtype) {
  return qtype == DQuantType::BFP16 ? &internal::floatToBfp16
                                    : &internal::floatToClampedHalf;
}

internal::DecodeKernel decoderOf(DQuantType qtype) {
  return qtype == DQuantType::BFP16 ? &internal::bfloat16ToFloat
                                    : &internal::halfToFloat;
}

}  // namespace

std::uint16_t bfp16Word(float x) {
  std::uint16_t word = 0;
  internal::floatToBfp16(&x, &word, 1);
  return word;
}

float bfp16Value(std::uint16_t word) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(word) << 16);
}

at::Tensor quantizeTensor(const at::Tensor& tensor, DQuantType qtype) {
  DISTALGO_CHECK_ARG(at::isFloatingType(tensor.scalar_type()), where(qtype),
                     "quantizeTensor expects a floating-point tensor, got ",
                     tensor.scalar_type());
  if (qtype == DQuantType::FP16 && !tensor.device().is_cpu()) {
    // clamp keeps NaN a NaN.
    return at::clamp(tensor.to(at::kFloat), -kFp16Max, kFp16Max)
        .to(at::kHalf)
        .contiguous();
  }
  const at::Tensor values = tensor.to(at::kCPU, at::kFloat).contiguous();
  return internal::encodeFloats(values, at::kHalf, encoderOf(qtype))
      .to(tensor.device());
}

void quantizeInto(const at::Tensor& tensor, DQuantType qtype,
                  const at::Tensor& words) {
  DISTALGO_CHECK_ARG(at::isFloatingType(tensor.scalar_type()) &&
                         words.scalar_type() == at::kHalf &&
                         words.sizes() == tensor.sizes(),
                     where(qtype),
                     "quantizeInto expects a floating-point tensor and float16 "
                     "words of its shape, got ",
                     tensor.scalar_type(), " ", tensor.sizes(), " into ",
                     words.scalar_type(), " ", words.sizes());
  const bool direct = tensor.device().is_cpu() && words.device().is_cpu() &&
                      tensor.scalar_type() == at::kFloat &&
                      tensor.is_contiguous() && words.is_contiguous();
  if (!direct) {
    words.copy_(quantizeTensor(tensor, qtype));
    return;
  }
  internal::encodeInto(tensor, words, encoderOf(qtype));
}

at::Tensor dequantizeTensor(const at::Tensor& tensor, DQuantType qtype,
                            std::optional<double> quant_loss) {
  DISTALGO_CHECK_ARG(tensor.scalar_type() == at::kHalf, where(qtype),
                     "dequantizeTensor expects the float16 tensor "
                     "quantizeTensor returns, got ",
                     tensor.scalar_type());
  at::Tensor values;
  if (qtype == DQuantType::FP16 && !tensor.device().is_cpu()) {
    values = tensor.to(at::kFloat);
  } else {
    const at::Tensor words = tensor.to(at::kCPU).contiguous();
    values = at::empty(words.sizes(), words.options().dtype(at::kFloat));
    internal::decodeWords(words, values, decoderOf(qtype));
    values = values.to(tensor.device());
  }
  if (quant_loss) values.div_(*quant_loss);
  return values;
}

void dequantizeInto(const at::Tensor& tensor, DQuantType qtype,
                    const at::Tensor& output,
                    std::optional<double> quant_loss) {
  DISTALGO_CHECK_ARG(tensor.scalar_type() == at::kHalf, where(qtype),
                     "dequantizeInto expects the float16 tensor "
                     "quantizeTensor returns, got ",
                     tensor.scalar_type());
  const bool direct = tensor.device().is_cpu() && output.device().is_cpu() &&
                      output.scalar_type() == at::kFloat &&
                      output.is_contiguous() && !output.requires_grad() &&
                      output.sizes() == tensor.sizes();
  if (!direct) {
    output.copy_(dequantizeTensor(tensor, qtype, quant_loss));
    return;
  }
  internal::decodeWords(tensor.contiguous(), output, decoderOf(qtype));
  if (quant_loss) output.div_(*quant_loss);
}

}  // namespace distalgo::quantization
