// Every quantized collective against the exact float32 one, on the same
// data: the results within the type's tolerance and half the bytes.

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include "collective_case.h"
#include "distalgo/quantization/codec.h"
#include "ranktest/counting_process_group.h"

namespace quantcase {
namespace {

using distalgo::quantization::dequantizeTensor;
using distalgo::quantization::quantizeTensor;

Bytes bytesOf(const ranktest::CountingProcessGroup& counting) {
  Bytes bytes;
  for (const auto& [collective, traffic] : counting.allTraffic()) {
    if (traffic.bytes != 0) bytes[collective] = traffic.bytes;
  }
  return bytes;
}

std::int64_t total(const Bytes& bytes) {
  std::int64_t sum = 0;
  for (const auto& [collective, b] : bytes) sum += b;
  return sum;
}

RANKTEST_P(QuantizationCollectives, MatchesTheExactCollectiveWithinTolerance) {
  const CollectiveCase& row = param();
  orSkip([&] {
    const std::vector<at::Tensor> exact = row.run(pg(), std::nullopt);
    const std::vector<at::Tensor> quantized = row.run(pg(), row.qtype);
    ASSERT_EQ(quantized.size(), exact.size());
    const std::vector<at::Tensor> magnitudes = row.magnitudes
                                                   ? row.magnitudes(worldSize())
                                                   : std::vector<at::Tensor>{};
    for (std::size_t i = 0; i < exact.size(); ++i) {
      SCOPED_TRACE(::testing::Message() << "output " << i);
      ASSERT_EQ(quantized[i].sizes(), exact[i].sizes());
      const at::Tensor error = (quantized[i] - exact[i]).abs();
      const at::Tensor bound =
          row.magnitudes ? sumBound(magnitudes.at(i), worldSize(), row.qtype)
                         : moveBound(exact[i], row.qtype);
      EXPECT_TRUE((error <= bound).all().item<bool>())
          << "largest error beyond the bound: "
          << (error - bound).max().item<double>();
      if (!row.magnitudes) {
        // Nothing is summed: each value is its sender's, coded once.
        EXPECT_TRUE(quantized[i].equal(
            dequantizeTensor(quantizeTensor(exact[i], row.qtype), row.qtype)));
      }
    }
  });
}

RANKTEST_P(QuantizationCollectives, HalvesTheBytesOnTheWire) {
  const CollectiveCase& row = param();
  orSkip([&] {
    auto exact = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
    row.run(exact, std::nullopt);
    auto quantized = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
    row.run(quantized, row.qtype);
    EXPECT_EQ(bytesOf(*quantized), row.quantized_bytes(pg()));
    if (bytesOf(*quantized).count("send") == 0) {
      EXPECT_EQ(2 * total(bytesOf(*quantized)), total(bytesOf(*exact)));
      return;
    }
    // Point-to-point sends count what crosses the wire, an allreduce its
    // input once: a ring moves 2 (W - 1) / W of that input per rank. Over
    // all ranks, the quantized sum sends half of the ring's.
    std::vector<at::Tensor> sent{
        at::full({1}, total(bytesOf(*quantized)), at::kLong)};
    pg()->allreduce(sent)->wait();
    const std::int64_t peers = worldSize() - 1;
    EXPECT_EQ(2 * sent[0].item<std::int64_t>(),
              2 * peers * total(bytesOf(*exact)));
  });
}

}  // namespace
}  // namespace quantcase
