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
#include "distalgo/hooks/powersgd.h"
#include "distalgo/hooks/quantization.h"

namespace bench {
namespace {

using Group = c10::intrusive_ptr<c10d::ProcessGroup>;
using distalgo::ddp::CommHook;

// A hook and SGD after backward, as every row of this benchmark.
DdpVariant withSgd(std::string name,
                   const std::function<void(DdpMode&)>& install) {
  return {std::move(name), [install](DdpMode& mode) {
            install(mode);
            useSgd(mode);
          }};
}

DdpVariant cppHook(const std::string& name,
                   const std::function<CommHook(const Group&)>& make) {
  return withSgd(name, [name, make](DdpMode& mode) {
    mode.ddp().registerCommHook(make(mode.group()), name);
  });
}

// PowerSGD of rank 1 from the third iteration, as on the Python side.
std::function<CommHook(const Group&)> powerSgd(bool batched) {
  return [batched](const Group& g) {
    auto state = std::make_shared<distalgo::hooks::PowerSgdState>(
        g, distalgo::hooks::PowerSgdOptions{.matrix_approximation_rank = 1,
                                            .start_iteration = 2});
    return batched ? distalgo::hooks::batchedPowerSgdHook(state)
                   : distalgo::hooks::powerSgdHook(state);
  };
}

std::vector<DdpVariant> hooks() {
  namespace h = distalgo::hooks;
  return {
      withSgd("reference", [](DdpMode&) {}),
      withSgd("builtin_allreduce",
              [](DdpMode& mode) {
                mode.ddp().registerBuiltinCommHook(
                    c10d::BuiltinCommHookType::ALLREDUCE);
              }),
      cppHook("allreduce", [](const Group& g) { return h::allreduceHook(g); }),
      cppHook("fp16_compress",
              [](const Group& g) { return h::fp16CompressHook(g); }),
      cppHook("fp16_wrapper(allreduce)",
              [](const Group& g) {
                return h::fp16CompressWrapper(h::allreduceHook(g));
              }),
      cppHook("noop", [](const Group&) { return h::noopHook(); }),
      cppHook("bf16_compress",
              [](const Group& g) { return h::bf16CompressHook(g); }),
      cppHook("bf16_wrapper(allreduce)",
              [](const Group& g) {
                return h::bf16CompressWrapper(h::allreduceHook(g));
              }),
      cppHook("quantization_per_tensor",
              [](const Group& g) { return h::quantizationPerTensorHook(g); }),
      cppHook("quantization_per_channel",
              [](const Group& g) { return h::quantizationPerChannelHook(g); }),
      cppHook("powersgd(rank=1)", powerSgd(false)),
      cppHook("batched_powersgd(rank=1)", powerSgd(true)),
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
