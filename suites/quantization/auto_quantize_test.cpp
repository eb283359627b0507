// autoQuantize around a collective that has no ready wrapper (broadcast),
// and quant_loss.

#include "distalgo/quantization/auto_quantize.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "distalgo/quantization/codec.h"
#include "distalgo/quantization/collectives.h"
#include "ranktest/ranktest.h"

namespace {

namespace q = distalgo::quantization;

class QuantizationAutoQuantize : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3}, .reuse_processes = true};
  }
};

// Root's value, coded once; every rank's own tensor keeps its dtype.
RANKTEST_F(QuantizationAutoQuantize, WrapsAnyCollective) {
  const at::Tensor root_value = at::linspace(-3, 3, 7, at::kDouble);
  for (q::DQuantType qtype : {q::DQuantType::FP16, q::DQuantType::BFP16}) {
    auto broadcast = q::autoQuantize(
        [this](std::vector<at::Tensor>& outputs,
               std::vector<at::Tensor>& inputs) {
          // In place: the root's quantized input is what everyone receives.
          std::vector<at::Tensor> tensors{rank() == 0 ? inputs[0] : outputs[0]};
          pg()->broadcast(tensors)->wait();
          outputs[0].copy_(tensors[0]);
        },
        qtype);
    at::Tensor tensor =
        rank() == 0 ? root_value.clone() : at::zeros({7}, at::kDouble);
    std::vector<at::Tensor> outputs{tensor};
    std::vector<at::Tensor> inputs{tensor};
    broadcast(outputs, inputs);
    EXPECT_EQ(tensor.scalar_type(), at::kDouble);
    const at::Tensor expected =
        q::dequantizeTensor(q::quantizeTensor(root_value, qtype), qtype);
    EXPECT_TRUE(tensor.to(at::kFloat).equal(expected)) << q::toString(qtype);
  }
}

RANKTEST_F(QuantizationAutoQuantize, DividesByTheQuantLoss) {
  const std::int64_t world = worldSize();
  at::Tensor input = at::full({world, 2}, 4.0f);
  at::Tensor output = at::empty({world, 2});
  for (q::DQuantType qtype : {q::DQuantType::FP16, q::DQuantType::BFP16}) {
    q::allToAllSingle(pg(), output, input, qtype, {.quant_loss = 8.0});
    EXPECT_TRUE(output.equal(at::full({world, 2}, 0.5f))) << q::toString(qtype);
  }
}

}  // namespace
