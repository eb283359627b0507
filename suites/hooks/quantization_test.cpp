// The quantization hooks: their rows in the parity table, the quantization
// math against PyTorch's, and the dequantize-then-average semantics on data
// every rank can recompute.

#include "distalgo/hooks/quantization.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <gmock/gmock.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "distalgo/hooks/bf16_compress.h"
#include "distalgo/hooks/internal/quantize.h"
#include "hand_bucket.h"
#include "hookparity/hook_parity.h"

namespace {

using distalgo::hooks::quantizationPerChannelHook;
using distalgo::hooks::quantizationPerTensorHook;
using hookparity::Bytes;
using hookparity::numelOf;
using hookparity::TrafficContext;

// Rows of the per-channel hook for n elements: PyTorch's padding adds a
// whole row when n is a multiple of the row length.
std::int64_t channelRows(std::int64_t n, std::int64_t row_length) {
  return n / row_length + 1;
}

// The model's gradients are one bucket; every step allgathers the float32
// (scale, zero point) pair(s), then moves the uint8 data: NCCL allgathers
// it, Gloo sends it to each other rank.
Bytes quantizedTraffic(const TrafficContext& c, std::int64_t rows,
                       std::int64_t data) {
  const std::int64_t steps = c.steps;
  const std::int64_t peers = c.world_size - 1;
  if (c.backend == "nccl") return {{"allgather", steps * (8 * rows + data)}};
  return {{"allgather", steps * 8 * rows}, {"send", steps * peers * data}};
}
Bytes perTensorTraffic(const TrafficContext& c) {
  return quantizedTraffic(c, 1, numelOf(c.parameters));
}
Bytes perChannelTraffic(const TrafficContext& c) {
  const std::int64_t rows = channelRows(numelOf(c.parameters), 512);
  return quantizedTraffic(c, rows, rows * 512);
}

// uint8 over the gradient's range: each element is off by up to half a step,
// range / 510, before averaging. Measured over the 3 steps, worst parameter
// difference from reference DDP (Gloo, world sizes 2-4): 2.15e-4 per tensor
// and per channel alike (one 512-element row holds all 212 gradients, so the
// steps are the same); this leaves about 5x headroom.
constexpr double kQuantizationAtol = 1e-3;

const std::vector<hookparity::HookCase> kQuantizationHooks = {
    {.name = "quantization_per_tensor",
     .make = [](const auto& pg) { return quantizationPerTensorHook(pg); },
     .parity = hookparity::within(kQuantizationAtol),
     .traffic = perTensorTraffic},
    {.name = "quantization_per_channel",
     .make = [](const auto& pg) { return quantizationPerChannelHook(pg); },
     .parity = hookparity::within(kQuantizationAtol),
     .traffic = perChannelTraffic},
};
RANKTEST_INSTANTIATE_P(CommHookParity, kQuantizationHooks);
RANKTEST_INSTANTIATE_P(CommHookCuda, kQuantizationHooks);

std::vector<float> valuesOf(const at::Tensor& t) {
  const at::Tensor c = t.to(at::kFloat).cpu().contiguous();
  return {c.data_ptr<float>(), c.data_ptr<float>() + c.numel()};
}

// torch.round of a quotient: a 16-bit one in float32, which holds the same
// integer (libtorch 1.13 has no CPU round for Half).
at::Tensor roundQuotient(const at::Tensor& q) {
  return at::round(
      q.is_floating_point() && q.element_size() == 2 ? q.to(at::kFloat) : q);
}

// PyTorch's hooks' coding, transcribed op for op
// (_quantize_per_tensor_backend, _quantize_per_channel_backend): the bucket,
// of its own type, divided by each 0-dimensional float32 scale.
at::Tensor pytorchQuantize(const at::Tensor& x,
                           const distalgo::hooks::internal::QuantParams& p) {
  if (p.scale.dim() == 0) {
    return at::clamp(roundQuotient(x / p.scale) + p.zero_point, 0, 255)
        .to(at::kByte);
  }
  at::Tensor y = at::zeros(x.sizes());
  for (std::int64_t i = 0; i < x.size(0); ++i) {
    y[i].copy_(roundQuotient(x[i] / p.scale[i]) + p.zero_point[i]);
  }
  return at::clamp(y, 0, 255).to(at::kByte);
}

// The expected values below were produced with Debian's python3-torch 1.13,
// and PyTorch 2.11 (the project's wheel) gives the same:
//   o = torch.ao.quantization.MinMaxObserver(); o(x); s, z =
//   o.calculate_qparams() torch.quantize_per_tensor(x, s.item(), z.item(),
//   torch.quint8).int_repr()
// and the same with PerChannelMinMaxObserver and quantize_per_channel.
TEST(CommHookQuantizationMath, PerTensorMatchesPyTorch) {
  const at::Tensor x = at::tensor(
      {-1.0f, -0.25f, 0.0f, 0.3f, 0.7f, 1.5f, 2.5f, 0.123f, 1e-3f, -0.6f});
  const auto params = distalgo::hooks::internal::minMaxParams(x);
  EXPECT_EQ(params.scale.item<float>(), 0.013725490309298038f);
  EXPECT_EQ(params.zero_point.item<float>(), 73);
  const at::Tensor q =
      distalgo::hooks::internal::quantize(x, params.scale, params.zero_point);
  EXPECT_EQ(q.scalar_type(), at::kByte);
  EXPECT_TRUE(at::equal(
      q, at::tensor({0, 55, 73, 95, 124, 182, 255, 82, 73, 29}, at::kByte)));
}

TEST(CommHookQuantizationMath, RangeAlwaysHoldsZero) {
  using distalgo::hooks::internal::minMaxParams;
  // Positive data: zero point 0; negative data: 255; both scale 3/255.
  const auto positive = minMaxParams(at::tensor({0.5f, 1.0f, 3.0f, 2.2f}));
  EXPECT_EQ(positive.zero_point.item<float>(), 0);
  EXPECT_FLOAT_EQ(positive.scale.item<float>(), 3.0f / 255);
  const auto negative = minMaxParams(at::tensor({-0.5f, -1.0f, -3.0f}));
  EXPECT_EQ(negative.zero_point.item<float>(), 255);
  EXPECT_FLOAT_EQ(negative.scale.item<float>(), 3.0f / 255);
  // All zeros: the scale is float32's epsilon, not 0.
  const auto zeros = minMaxParams(at::zeros({4}));
  EXPECT_EQ(zeros.scale.item<float>(), std::numeric_limits<float>::epsilon());
  EXPECT_EQ(zeros.zero_point.item<float>(), 0);
}

TEST(CommHookQuantizationMath, PerRowMatchesPyTorch) {
  const at::Tensor rows = at::tensor({-1.0f, 0.5f, 2.0f, 0.25f,  //
                                      0.1f, 0.2f, 0.3f, 0.05f})
                              .view({2, 4});
  const auto params = distalgo::hooks::internal::perRowMinMaxParams(rows);
  EXPECT_EQ(valuesOf(params.scale),
            (std::vector<float>{0.0117647061124444f, 0.0011764706578105688f}));
  EXPECT_EQ(valuesOf(params.zero_point), (std::vector<float>{85, 0}));
  const at::Tensor q = distalgo::hooks::internal::quantize(
      rows, params.scale.unsqueeze(1), params.zero_point.unsqueeze(1));
  EXPECT_TRUE(
      at::equal(q, at::tensor({0, 127, 255, 106, 85, 170, 255, 42}, at::kByte)
                       .view({2, 4})));
}

// torch.round rounds half to even: with scale 1, 2.5 -> 2 and 3.5 -> 4.
TEST(CommHookQuantizationMath, RoundsHalfToEven) {
  const at::Tensor x = at::tensor({0.0f, 2.5f, 3.5f, 255.0f});
  const auto params = distalgo::hooks::internal::minMaxParams(x);
  ASSERT_EQ(params.scale.item<float>(), 1.0f);
  EXPECT_TRUE(at::equal(
      distalgo::hooks::internal::quantize(x, params.scale, params.zero_point),
      at::tensor({0, 2, 4, 255}, at::kByte)));
}

// A 16-bit quotient is rounded to 16 bits before torch.round, a float64 one
// is not rounded to float32: some codes differ from float32 math.
TEST(CommHookQuantizationMath, OtherBucketTypesDivideInTheirOwnType) {
  namespace qi = distalgo::hooks::internal;
  for (const auto type : {at::kHalf, at::kBFloat16, at::kDouble}) {
    SCOPED_TRACE(c10::toString(type));
    const at::Tensor x = (at::randn({std::int64_t{37} * 270}) * 3).to(type);
    const auto whole = qi::minMaxParams(x);
    EXPECT_TRUE(qi::quantize(x, whole.scale, whole.zero_point)
                    .equal(pytorchQuantize(x, whole)));
    const at::Tensor rows = x.view({37, 270});
    const auto per_row = qi::perRowMinMaxParams(rows);
    EXPECT_TRUE(qi::quantize(rows, per_row.scale.unsqueeze(1),
                             per_row.zero_point.unsqueeze(1))
                    .equal(pytorchQuantize(rows, per_row)));
  }
}

// A scalar transcription of PyTorch's quantize-dequantize of one group of
// values (a tensor, or one row), independent of the library's tensor code.
std::vector<float> roundTrip(const std::vector<float>& x) {
  float lo = 0, hi = 0;
  for (float v : x) lo = std::min(lo, v), hi = std::max(hi, v);
  const float scale =
      std::max((hi - lo) / 255.0f, std::numeric_limits<float>::epsilon());
  const float zero_point =
      std::clamp(-std::nearbyint(lo / scale), 0.0f, 255.0f);
  std::vector<float> out;
  for (float v : x) {
    const float q =
        std::clamp(std::nearbyint(v / scale) + zero_point, 0.0f, 255.0f);
    out.push_back(scale * (q - zero_point));
  }
  return out;
}

class CommHookQuantization : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }

 protected:
  // Rank r's gradients, which every rank can compute: a different scale and
  // offset per rank, so that every rank's (scale, zero point) differs.
  static at::Tensor gradients(int rank, std::int64_t n) {
    auto generator = at::detail::createCPUGenerator(/*seed_val=*/1000 + rank);
    return at::randn({n}, generator) * (rank + 1) + 0.1 * rank;
  }

  // Mean over ranks of each rank's own round trip, with `row_length`
  // elements per scale (the whole tensor when 0), padded as PyTorch pads.
  std::vector<float> expectedMean(std::int64_t n,
                                  std::int64_t row_length) const {
    std::vector<float> sum(n, 0.0f);
    for (int r = 0; r < worldSize(); ++r) {
      std::vector<float> x = valuesOf(gradients(r, n));
      std::vector<float> trip;
      if (row_length == 0) {
        trip = roundTrip(x);
      } else {
        x.resize(channelRows(n, row_length) * row_length, 0.0f);
        for (std::size_t start = 0; start < x.size(); start += row_length) {
          const auto row =
              roundTrip({x.begin() + start, x.begin() + start + row_length});
          trip.insert(trip.end(), row.begin(), row.end());
        }
      }
      for (std::int64_t i = 0; i < n; ++i) sum[i] += trip[i];
    }
    for (float& v : sum) v /= worldSize();
    return sum;
  }

  at::Tensor onDevice(const at::Tensor& t) const { return t.to(device()); }
};

RANKTEST_F(CommHookQuantization, PerTensorAveragesEachRanksOwnRoundTrip) {
  for (const std::int64_t n : {1, 5, 212, 1000}) {
    const at::Tensor result = hookparity::runOnBuffer(
        quantizationPerTensorHook(pg()), onDevice(gradients(rank(), n)));
    EXPECT_EQ(result.sizes(), at::IntArrayRef{n});
    EXPECT_EQ(valuesOf(result), expectedMean(n, 0)) << "n = " << n;
  }
}

RANKTEST_F(CommHookQuantization, PerChannelAveragesEachRowsRoundTrip) {
  for (const std::int64_t n : {1, 212, 700, 1024}) {
    const at::Tensor result = hookparity::runOnBuffer(
        quantizationPerChannelHook(pg()), onDevice(gradients(rank(), n)));
    EXPECT_EQ(result.sizes(), at::IntArrayRef{n});
    EXPECT_EQ(valuesOf(result), expectedMean(n, 512)) << "n = " << n;
  }
  // A short row length: 10 elements in rows of 4 (3 rows, 2 of padding).
  const at::Tensor result = hookparity::runOnBuffer(
      quantizationPerChannelHook(pg(), 4), onDevice(gradients(rank(), 10)));
  EXPECT_EQ(valuesOf(result), expectedMean(10, 4));
}

// A row's float32 scale and zero point.
constexpr std::int64_t kRowQparamsBytes = 8;

// After one hook call: checks that the qparams' allgather put in
// `qparams_bytes`, and returns the uint8 data's bytes per rank reached
// (NCCL allgathers them; Gloo sends them to each other rank).
std::int64_t dataBytes(const ranktest::CountingProcessGroup& counting,
                       std::int64_t qparams_bytes) {
  const ranktest::Traffic gathered = counting.traffic("allgather");
  if (counting.getBackendName() == "nccl") {
    EXPECT_EQ(gathered.calls, 2);
    return gathered.bytes - qparams_bytes;
  }
  EXPECT_EQ(gathered.calls, 1);
  EXPECT_EQ(gathered.bytes, qparams_bytes);
  const ranktest::Traffic sent = counting.traffic("send");
  EXPECT_EQ(sent.calls, counting.getSize() - 1);
  return sent.bytes / (counting.getSize() - 1);
}

// PyTorch pads by 512 - n % 512, so at n = 1024 a third row of zeros is sent
// with its own scale and zero point.
RANKTEST_F(CommHookQuantization, PerChannelAddsAWholeRowAtMultiplesOf512) {
  auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
  hookparity::runOnBuffer(quantizationPerChannelHook(counting),
                          onDevice(gradients(rank(), 1024)));
  EXPECT_EQ(dataBytes(*counting, 3 * kRowQparamsBytes), 3 * 512);
  counting->reset();
  hookparity::runOnBuffer(quantizationPerChannelHook(counting),
                          onDevice(gradients(rank(), 1023)));
  EXPECT_EQ(dataBytes(*counting, 2 * kRowQparamsBytes), 2 * 512);
}

RANKTEST_F(CommHookQuantization, PerTensorSendsScaleZeroPointAndBytes) {
  auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
  hookparity::runOnBuffer(quantizationPerTensorHook(counting),
                          onDevice(gradients(rank(), 300)));
  EXPECT_EQ(dataBytes(*counting, kRowQparamsBytes), 300);
}

// All zeros gives scale epsilon; a constant gives a range from 0 to it. No
// NaN either way, and both come back (nearly) as they were.
RANKTEST_F(CommHookQuantization, ConstantAndZeroBucketsStayFinite) {
  for (const bool per_channel : {false, true}) {
    const auto hook = per_channel ? quantizationPerChannelHook(pg())
                                  : quantizationPerTensorHook(pg());
    const at::Tensor zeros =
        hookparity::runOnBuffer(hook, onDevice(at::zeros({100})));
    EXPECT_TRUE(at::equal(zeros.cpu(), at::zeros({100})))
        << "per_channel " << per_channel;
    const at::Tensor constant =
        hookparity::runOnBuffer(hook, onDevice(at::full({100}, 0.75)));
    EXPECT_TRUE(at::isfinite(constant).all().item<bool>());
    EXPECT_TRUE(at::allclose(constant.cpu(), at::full({100}, 0.75), 0, 1e-6))
        << "per_channel " << per_channel << ", got "
        << constant[0].item<float>();
  }
}

// The quantization hooks compute in float32, so they also run under the
// bfloat16 wrapper.
RANKTEST_F(CommHookQuantization, RunsUnderTheBf16Wrapper) {
  const at::Tensor data = onDevice(gradients(rank(), 64));
  const at::Tensor result = hookparity::runOnBuffer(
      distalgo::hooks::bf16CompressWrapper(quantizationPerTensorHook(pg())),
      data.clone());
  EXPECT_EQ(result.scalar_type(), at::kFloat);
  at::Tensor mean = at::zeros({64});
  for (int r = 0; r < worldSize(); ++r) mean += gradients(r, 64);
  mean /= worldSize();
  // bfloat16 rounding plus half a quantization step of the widest rank.
  EXPECT_TRUE(at::allclose(result.cpu(), mean, 0.02, 0.05))
      << "largest difference "
      << (result.cpu() - mean).abs().max().item<float>();
}

// A 16-bit bucket averages each rank's round trip as PyTorch's hooks code
// it (pytorchQuantize), and comes back in its own type.
RANKTEST_F(CommHookQuantization, SixteenBitBucketsAverageAsPyTorchCodesThem) {
  namespace qi = distalgo::hooks::internal;
  constexpr std::int64_t n = 700;
  constexpr std::int64_t kRow = 512;
  for (const auto type : {at::kHalf, at::kBFloat16}) {
    for (const bool per_channel : {false, true}) {
      SCOPED_TRACE(std::string(c10::toString(type)) +
                   (per_channel ? " per channel" : " per tensor"));
      at::Tensor sum = at::zeros({per_channel ? 2 * kRow : n});
      for (int r = 0; r < worldSize(); ++r) {
        at::Tensor rows = gradients(r, n).to(type);
        if (per_channel) {
          rows =
              at::constant_pad_nd(rows, {0, kRow - n % kRow}).view({-1, kRow});
        }
        const auto p =
            per_channel ? qi::perRowMinMaxParams(rows) : qi::minMaxParams(rows);
        const at::Tensor y = pytorchQuantize(rows, p).to(at::kFloat);
        sum += (per_channel
                    ? p.scale.unsqueeze(1) * (y - p.zero_point.unsqueeze(1))
                    : p.scale * (y - p.zero_point))
                   .reshape(-1);
      }
      const at::Tensor expected = (sum / worldSize()).narrow(0, 0, n).to(type);
      const auto hook = per_channel ? quantizationPerChannelHook(pg())
                                    : quantizationPerTensorHook(pg());
      const at::Tensor result = hookparity::runOnBuffer(
          hook, onDevice(gradients(rank(), n).to(type)));
      EXPECT_EQ(result.scalar_type(), type);
      EXPECT_TRUE(result.cpu().equal(expected))
          << "largest difference "
          << (result.cpu().to(at::kFloat) - expected.to(at::kFloat))
                 .abs()
                 .max()
                 .item<float>();
    }
  }
}

// The fused CPU kernels against the tensor formulas of quantize.h, bit for
// bit, per tensor and per row, on lengths that leave a tail after the
// vector width; a view and a double tensor take the formulas themselves.
TEST(CommHookQuantizationMath, FusedKernelsEqualTheTensorFormulas) {
  namespace qi = distalgo::hooks::internal;
  const auto formula = [](const at::Tensor& x, const at::Tensor& s,
                          const at::Tensor& z) {
    return at::clamp(at::round(x.to(at::kFloat) / s) + z, 0, 255).to(at::kByte);
  };
  const at::Tensor flat = at::randn({10007}) * 3;
  const auto whole = qi::minMaxParams(flat);
  const at::Tensor rows = at::randn({37, 519});
  const auto per_row = qi::perRowMinMaxParams(rows);
  const at::Tensor row_scale = per_row.scale.unsqueeze(1);
  const at::Tensor row_zero = per_row.zero_point.unsqueeze(1);
  const at::Tensor q_flat = qi::quantize(flat, whole.scale, whole.zero_point);
  const at::Tensor q_rows = qi::quantize(rows, row_scale, row_zero);
  EXPECT_TRUE(q_flat.equal(formula(flat, whole.scale, whole.zero_point)));
  EXPECT_TRUE(q_rows.equal(formula(rows, row_scale, row_zero)));
  const at::Tensor strided = rows.t();
  EXPECT_TRUE(qi::quantize(strided, whole.scale, whole.zero_point)
                  .equal(formula(strided, whole.scale, whole.zero_point)));

  at::Tensor sum = at::randn({37, 519});
  const at::Tensor expected = sum + qi::dequantize(q_rows, row_scale, row_zero);
  qi::accumulateDequantized(sum, q_rows, row_scale, row_zero);
  EXPECT_TRUE(sum.equal(expected))
      << (sum - expected).abs().max().item<float>();
  at::Tensor flat_sum = at::zeros({10007});
  qi::accumulateDequantized(flat_sum, q_flat, whole.scale, whole.zero_point);
  EXPECT_TRUE(
      flat_sum.equal(qi::dequantize(q_flat, whole.scale, whole.zero_point)));
}

TEST(CommHookQuantizationApi, PerChannelRefusesRowsShorterThanOne) {
  EXPECT_THROW(quantizationPerChannelHook({}, 0), std::invalid_argument);
}

}  // namespace
