#include "distalgo/quantization/auto_quantize.h"

#include <ATen/ATen.h>

#include <utility>

#include "distalgo/quantization/codec.h"
#include "internal/check.h"

namespace distalgo::quantization {

Collective autoQuantize(Collective collective, DQuantType qtype,
                        std::optional<double> quant_loss) {
  return
      [collective = std::move(collective), qtype, quant_loss](
          std::vector<at::Tensor>& outputs, std::vector<at::Tensor>& inputs) {
        for (std::size_t i = 0; i < outputs.size(); ++i) {
          DISTALGO_CHECK_ARG(at::isFloatingType(outputs[i].scalar_type()),
                             "distalgo::quantization::autoQuantize (",
                             toString(qtype), "): output ", i,
                             " must be floating point, got ",
                             outputs[i].scalar_type());
        }
        std::vector<at::Tensor> quantized_inputs;
        quantized_inputs.reserve(inputs.size());
        for (const at::Tensor& input : inputs) {
          quantized_inputs.push_back(quantizeTensor(input, qtype));
        }
        std::vector<at::Tensor> quantized_outputs;
        quantized_outputs.reserve(outputs.size());
        for (const at::Tensor& output : outputs) {
          quantized_outputs.push_back(
              at::empty(output.sizes(), output.options().dtype(at::kHalf)));
        }
        collective(quantized_outputs, quantized_inputs);
        for (std::size_t i = 0; i < outputs.size(); ++i) {
          outputs[i].copy_(
              dequantizeTensor(quantized_outputs[i], qtype, quant_loss));
        }
      };
}

}  // namespace distalgo::quantization
