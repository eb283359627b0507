// ddp_step: the training step of distalgo's DDP with no hook, the built-in
// allreduce and each C++ communication hook, side by side, and the bytes
// each sends. bench/ddp_step.py times the same steps in PyTorch's Python
// DDP; a hook added here wants an entry under the same name there.

#include <memory>
#include <string>
#include <vector>

#include "algorithms/benchmarks.h"
#include "algorithms/ddp_variants.h"
#include "distalgo/hooks/bf16_compress.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/fp16_compress.h"
#include "distalgo/hooks/quantization.h"

namespace bench {
namespace {

using Group = c10::intrusive_ptr<c10d::ProcessGroup>;

std::vector<DdpVariant> hooks() {
  namespace h = distalgo::hooks;
  return {
      withSgd("reference", [](DdpMode&) {}),
      withSgd("builtin_allreduce",
              [](DdpMode& mode) {
                mode.ddp().registerBuiltinCommHook(
                    c10d::BuiltinCommHookType::ALLREDUCE);
              }),
      hookWithSgd("allreduce",
                  [](const Group& g) { return h::allreduceHook(g); }),
      hookWithSgd("fp16_compress",
                  [](const Group& g) { return h::fp16CompressHook(g); }),
      hookWithSgd("fp16_wrapper(allreduce)",
                  [](const Group& g) {
                    return h::fp16CompressWrapper(h::allreduceHook(g));
                  }),
      hookWithSgd("noop", [](const Group&) { return h::noopHook(); }),
      hookWithSgd("bf16_compress",
                  [](const Group& g) { return h::bf16CompressHook(g); }),
      hookWithSgd("bf16_wrapper(allreduce)",
                  [](const Group& g) {
                    return h::bf16CompressWrapper(h::allreduceHook(g));
                  }),
      hookWithSgd(
          "quantization_per_tensor",
          [](const Group& g) { return h::quantizationPerTensorHook(g); }),
      hookWithSgd(
          "quantization_per_channel",
          [](const Group& g) { return h::quantizationPerChannelHook(g); }),
      hookWithSgd("powersgd(rank=1)", powerSgd(1, false)),
      hookWithSgd("batched_powersgd(rank=1)", powerSgd(1, true)),
  };
}

}  // namespace

void ddpStep(Flags& flags) {
  const ModelCells cells = modelCellFlags(
      flags, "mlp,convnet", {.warmup = 10, .steps = 120, .block = 10}, 25);
  const SampleFile out(flags.text("out", ""), variantHeader({"side"}));
  flags.checkAllRead();
  timeVariants(cells, hooks(), {"cpp"}, out);
}

}  // namespace bench
