// The quantized collectives on CUDA tensors: the results stay on the GPU and
// are within the type's bound of the exact collective on the same data.
// Skipped (code 74) where no GPU is visible.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <vector>

#include "collective_case.h"
#include "distalgo/quantization/codec.h"
#include "distalgo/quantization/collectives.h"

namespace quantcase {
namespace {

namespace q = distalgo::quantization;

// NCCL at one rank per GPU, Gloo at two ranks (which may share a GPU).
class QuantizationCuda : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {1, 2}, .on_cuda = true};
  }
};

const std::vector<std::int64_t> kCudaShape{12, 10};

RANKTEST_F(QuantizationCuda, AllReduceSumsOnTheGpuWithinTheBound) {
  ASSERT_TRUE(device().is_cuda());
  for (DQuantType qtype : {DQuantType::FP16, DQuantType::BFP16}) {
    SCOPED_TRACE(q::toString(qtype));
    const at::Tensor data = rankData(rank(), 3, kCudaShape).to(device());
    std::vector<at::Tensor> exact{data.clone()};
    pg()->allreduce(exact)->wait();
    at::Tensor quantized = data.clone();
    q::allReduce(pg(), quantized, qtype);
    ASSERT_TRUE(quantized.is_cuda());
    at::Tensor magnitude = at::zeros(kCudaShape);
    for (int r = 0; r < worldSize(); ++r) {
      magnitude += rankData(r, 3, kCudaShape).abs();
    }
    const at::Tensor error = (quantized.cpu() - exact[0].cpu()).abs();
    EXPECT_TRUE(
        (error <= sumBound(magnitude, worldSize(), qtype)).all().item<bool>());
  }
}

RANKTEST_F(QuantizationCuda, AllGatherMovesEachValueCodedOnce) {
  ASSERT_TRUE(device().is_cuda());
  for (DQuantType qtype : {DQuantType::FP16, DQuantType::BFP16}) {
    SCOPED_TRACE(q::toString(qtype));
    const at::Tensor input = rankData(rank(), 1, kCudaShape).to(device());
    std::vector<at::Tensor> outputs(worldSize());
    for (at::Tensor& t : outputs) t = at::empty(kCudaShape, input.options());
    q::allGather(pg(), outputs, input, qtype);
    for (int r = 0; r < worldSize(); ++r) {
      ASSERT_TRUE(outputs[r].is_cuda());
      const at::Tensor sent = rankData(r, 1, kCudaShape);
      EXPECT_TRUE(outputs[r].cpu().equal(
          q::dequantizeTensor(q::quantizeTensor(sent, qtype), qtype)))
          << "from rank " << r;
    }
  }
}

}  // namespace
}  // namespace quantcase
