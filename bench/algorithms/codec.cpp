// codec: distalgo's FP16 and BFP16 codecs on one thread, per direction,
// allocating their result and into a given tensor, against a plain copy of
// the same float32 tensor and ATen's own casts, side by side in one run.

#include "distalgo/quantization/codec.h"

#include <ATen/ATen.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/benchmarks.h"
#include "common/ranks.h"

namespace bench {
namespace {

namespace q = distalgo::quantization;

// One call of a conversion; what it returns is dropped after the step.
class Conversion : public Mode {
 public:
  explicit Conversion(std::function<at::Tensor()> call)
      : call_(std::move(call)) {}
  void step(int) override { result_ = call_(); }
  void prepare(int) override { result_.reset(); }

 private:
  std::function<at::Tensor()> call_;
  at::Tensor result_;
};

// The modes of one tensor of `numel` floats. A mode that allocates its
// result is compared with "copy" (clone), one that writes into a tensor
// it was given with "copy_into" (copy_).
std::vector<NamedMode> conversions(std::int64_t numel) {
  const at::Tensor x = at::randn({numel});
  const at::Tensor half = x.to(at::kHalf);
  const at::Tensor bf16 = x.to(at::kBFloat16);
  const at::Tensor fp16_words = q::quantizeTensor(x, q::DQuantType::FP16);
  const at::Tensor bfp16_words = q::quantizeTensor(x, q::DQuantType::BFP16);
  const at::Tensor into = at::empty({numel});
  const at::Tensor words_into = at::empty({numel}, at::kHalf);
  const std::vector<std::pair<std::string, std::function<at::Tensor()>>> calls =
      {{"copy", [=] { return x.clone(); }},
       {"copy_into", [=] { return into.copy_(x); }},
       {"fp16_quantize",
        [=] { return q::quantizeTensor(x, q::DQuantType::FP16); }},
       {"fp16_dequantize",
        [=] { return q::dequantizeTensor(fp16_words, q::DQuantType::FP16); }},
       {"fp16_quantize_into",
        [=] {
          q::quantizeInto(x, q::DQuantType::FP16, words_into);
          return at::Tensor();
        }},
       {"fp16_dequantize_into",
        [=] {
          q::dequantizeInto(fp16_words, q::DQuantType::FP16, into);
          return at::Tensor();
        }},
       {"bfp16_quantize",
        [=] { return q::quantizeTensor(x, q::DQuantType::BFP16); }},
       {"bfp16_dequantize",
        [=] { return q::dequantizeTensor(bfp16_words, q::DQuantType::BFP16); }},
       {"bfp16_quantize_into",
        [=] {
          q::quantizeInto(x, q::DQuantType::BFP16, words_into);
          return at::Tensor();
        }},
       {"bfp16_dequantize_into",
        [=] {
          q::dequantizeInto(bfp16_words, q::DQuantType::BFP16, into);
          return at::Tensor();
        }},
       // What fp16_quantize was: ATen's clamp, then ATen's cast.
       {"aten_clamp_to_fp16",
        [=] { return at::clamp(x, -65504, 65504).to(at::kHalf); }},
       // The compression hooks' casts, ATen's.
       {"aten_to_fp16", [=] { return x.to(at::kHalf); }},
       {"aten_from_fp16", [=] { return into.copy_(half); }},
       {"aten_to_bf16", [=] { return x.to(at::kBFloat16); }},
       {"aten_from_bf16", [=] { return into.copy_(bf16); }}};
  std::vector<NamedMode> modes;
  for (const auto& [name, call] : calls) {
    modes.push_back({name, std::make_unique<Conversion>(call)});
  }
  return modes;
}

}  // namespace

void codec(Flags& flags) {
  const auto sizes_mib = flags.list("sizes_mib", "64");
  const Schedule schedule =
      scheduleFlags(flags, {.warmup = 3, .steps = 30, .block = 5});
  const SampleFile out(flags.text("out", ""),
                       {"mib", "mode", "round", "metric", "value"});
  flags.checkAllRead();
  // One rank: inRanks gives it one intra-op thread.
  inRanks(1, [&](const ranktest::Rank& rank) {
    for (const std::string& mib : sizes_mib) {
      std::vector<NamedMode> modes =
          conversions(static_cast<std::int64_t>(std::stod(mib) * 262144));
      timeModes(rank, modes, schedule, {mib}, out);
    }
  });
}

}  // namespace bench
