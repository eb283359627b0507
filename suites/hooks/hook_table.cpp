// The rows of the plain hooks: allreduce, fp16 compression and noop.

#include <vector>

#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/fp16_compress.h"
#include "fixtures/chunked_sum_bytes.h"
#include "hookparity/hook_parity.h"

namespace {

using hookparity::Bytes;
using hookparity::TrafficContext;

Bytes sameAsReference(const TrafficContext& c) {
  return {{"allreduce", c.reference_bytes}};
}
// NCCL sums float16 itself; Gloo's float16 sum is summed by chunks instead.
Bytes halfOfReference(const TrafficContext& c) {
  if (c.backend == "nccl") return {{"allreduce", c.reference_bytes / 2}};
  return {{"send", c.steps * fixtures::chunkedSumSendBytes(
                                 hookparity::numelOf(c.parameters),
                                 c.world_size, c.rank)}};
}

// float16 keeps 11 significant bits: gradients round at about 5e-4
// relative, so after 3 small steps parameters stay within this of reference
// DDP.
constexpr double kFp16Atol = 1e-3;

const std::vector<hookparity::HookCase> kPlainHooks = {
    {.name = "allreduce",
     .make = [](const auto& pg) { return distalgo::hooks::allreduceHook(pg); },
     .parity = hookparity::exact(),
     .traffic = sameAsReference},
    {.name = "fp16_compress",
     .make =
         [](const auto& pg) { return distalgo::hooks::fp16CompressHook(pg); },
     .parity = hookparity::within(kFp16Atol),
     .traffic = halfOfReference},
    {.name = "fp16_wrapper_of_allreduce",
     .make =
         [](const auto& pg) {
           return distalgo::hooks::fp16CompressWrapper(
               distalgo::hooks::allreduceHook(pg));
         },
     .parity = hookparity::within(kFp16Atol),
     .traffic = halfOfReference},
    {.name = "noop",
     .make = [](const auto&) { return distalgo::hooks::noopHook(); },
     .parity = hookparity::local(),
     .traffic = [](const TrafficContext&) { return Bytes{}; }},
};
RANKTEST_INSTANTIATE_P(CommHookParity, kPlainHooks);
RANKTEST_INSTANTIATE_P(CommHookCuda, kPlainHooks);

}  // namespace
