#include "distalgo/quantization/auto_quantize.h"

#include <ATen/ATen.h>
#include <c10/util/ScopeExit.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "distalgo/quantization/codec.h"
#include "internal/check.h"
#include "quantization/internal/staging.h"

namespace distalgo::quantization {
namespace {

bool onCpu(const std::vector<at::Tensor>& tensors) {
  return std::all_of(tensors.begin(), tensors.end(),
                     [](const at::Tensor& t) { return t.device().is_cpu(); });
}

// Float16 tensors of the shapes of `tensors`: views of one staging buffer
// when `staged`, fresh ones on their devices otherwise.
std::vector<at::Tensor> halfTensorsLike(const std::vector<at::Tensor>& tensors,
                                        bool staged,
                                        internal::StagingSlot slot) {
  std::vector<at::Tensor> out;
  out.reserve(tensors.size());
  if (!staged) {
    for (const at::Tensor& t : tensors) {
      out.push_back(at::empty(t.sizes(), t.options().dtype(at::kHalf)));
    }
    return out;
  }
  std::int64_t numel = 0;
  for (const at::Tensor& t : tensors) numel += t.numel();
  const at::Tensor buffer = internal::staging(slot, numel, at::kHalf);
  std::int64_t offset = 0;
  for (const at::Tensor& t : tensors) {
    out.push_back(buffer.narrow(0, offset, t.numel()).view(t.sizes()));
    offset += t.numel();
  }
  return out;
}

}  // namespace

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
        // On the CPU the 16-bit tensors live in this thread's staging
        // buffers, reused from call to call; a quantized collective called
        // inside `collective` gets fresh ones.
        thread_local int depth = 0;
        const bool staged = depth == 0 && onCpu(inputs) && onCpu(outputs);
        ++depth;
        const auto leave = c10::make_scope_exit([] { --depth; });
        std::vector<at::Tensor> quantized_inputs = halfTensorsLike(
            inputs, staged, internal::StagingSlot::kQuantizedInputs);
        for (std::size_t i = 0; i < inputs.size(); ++i) {
          quantizeInto(inputs[i], qtype, quantized_inputs[i]);
        }
        std::vector<at::Tensor> quantized_outputs = halfTensorsLike(
            outputs, staged, internal::StagingSlot::kQuantizedOutputs);
        collective(quantized_outputs, quantized_inputs);
        for (std::size_t i = 0; i < outputs.size(); ++i) {
          dequantizeInto(quantized_outputs[i], qtype, outputs[i], quant_loss);
        }
      };
}

}  // namespace distalgo::quantization
