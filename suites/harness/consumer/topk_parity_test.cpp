// The user's hook under ranktest's hook parity kit, at world sizes 2 and 3:
// against reference DDP (in one and in three buckets), against the
// single-process ground truth, and its bytes on the wire.

#include <cstdint>
#include <vector>

#include "hookparity/hook_parity.h"
#include "topk_hook.h"

namespace {

constexpr double kRatio = 0.25;

// Each step allgathers k float values and their k int64 indices.
hookparity::Bytes topKBytes(const hookparity::TrafficContext& c) {
  const std::int64_t k =
      consumer::topKCount(hookparity::numelOf(c.parameters), kRatio);
  return {{"allgather", c.steps * k * (4 + 8)}};
}

const std::vector<hookparity::HookCase> kTopK = {
    {.name = "topk_error_feedback",
     .make = [](const auto& pg) { return consumer::topKHook(pg, kRatio); },
     // A quarter of each bucket is sent (1 of a bias's 4 gradients), the
     // rest waits in the error buffer: after 3 steps every parameter is
     // within 0.05 of DDP's.
     .parity = hookparity::within(0.05),
     .traffic = topKBytes}};
RANKTEST_INSTANTIATE_P(CommHookParity, kTopK, ranktest::worldSizes({2, 3}));

}  // namespace
