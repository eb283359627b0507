#include "ddp_step/hooks.h"

#include <memory>

#include "distalgo/hooks/bf16_compress.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/fp16_compress.h"
#include "distalgo/hooks/powersgd.h"
#include "distalgo/hooks/quantization.h"

namespace ddp_step {
namespace {

using distalgo::ddp::CommHook;

// A row for a C++ hook made from the group by `make`.
HookRow custom(std::string name, std::function<CommHook(const Group&)> make) {
  return {name, [name, make](Ddp& ddp, const Group& group) {
            ddp.registerCommHook(make(group), name);
          }};
}

// A row for one of c10d's built-in hooks.
HookRow builtin(std::string name, c10d::BuiltinCommHookType type) {
  return {std::move(name), [type](Ddp& ddp, const Group&) {
            ddp.registerBuiltinCommHook(type);
          }};
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

}  // namespace

const std::vector<HookRow>& hookRows() {
  namespace hooks = distalgo::hooks;
  static const std::vector<HookRow> rows = {
      {"reference", nullptr},
      builtin("builtin_allreduce", c10d::BuiltinCommHookType::ALLREDUCE),
      custom("allreduce",
             [](const Group& g) { return hooks::allreduceHook(g); }),
      custom("fp16_compress",
             [](const Group& g) { return hooks::fp16CompressHook(g); }),
      custom("fp16_wrapper(allreduce)",
             [](const Group& g) {
               return hooks::fp16CompressWrapper(hooks::allreduceHook(g));
             }),
      custom("noop", [](const Group&) { return hooks::noopHook(); }),
      custom("bf16_compress",
             [](const Group& g) { return hooks::bf16CompressHook(g); }),
      custom("bf16_wrapper(allreduce)",
             [](const Group& g) {
               return hooks::bf16CompressWrapper(hooks::allreduceHook(g));
             }),
      custom(
          "quantization_per_tensor",
          [](const Group& g) { return hooks::quantizationPerTensorHook(g); }),
      custom(
          "quantization_per_channel",
          [](const Group& g) { return hooks::quantizationPerChannelHook(g); }),
      custom("powersgd(rank=1)", powerSgd(false)),
      custom("batched_powersgd(rank=1)", powerSgd(true)),
  };
  return rows;
}

const HookRow* findHook(const std::string& name) {
  for (const HookRow& row : hookRows()) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

}  // namespace ddp_step
