// A hook refuses what it cannot use when it is made, with a message, rather
// than crashing on the autograd thread at the first backward. (No process
// group needed: these never communicate.)

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "distalgo/hooks/bf16_compress.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/fp16_compress.h"
#include "distalgo/hooks/powersgd.h"
#include "distalgo/hooks/powersgd_state.h"
#include "distalgo/hooks/quantization.h"

namespace {

using namespace distalgo::hooks;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

const c10::intrusive_ptr<c10d::ProcessGroup> kNoGroup;

template <typename Make>
void expectRefused(Make make, const std::string& message) {
  EXPECT_THAT(make, ThrowsMessage<std::invalid_argument>(HasSubstr(message)));
}

TEST(CommHookArguments, NullProcessGroupIsRefusedWhenTheHookIsMade) {
  const std::string allreduce =
      "distalgo::hooks::allreduceHook: expected a process group, got null";
  expectRefused([] { allreduceHook(kNoGroup); }, allreduce);
  expectRefused([] { fp16CompressHook(kNoGroup); }, allreduce);
  expectRefused([] { bf16CompressHook(kNoGroup); }, allreduce);
  expectRefused([] { quantizationPerTensorHook(kNoGroup); },
                "quantizationPerTensorHook: expected a process group, got "
                "null");
  expectRefused([] { quantizationPerChannelHook(kNoGroup); },
                "quantizationPerChannelHook: expected a process group, got "
                "null");
}

TEST(CommHookArguments, PowerSgdHookNeedsAStateWithAProcessGroup) {
  expectRefused([] { powerSgdHook(nullptr); },
                "distalgo::hooks::powerSgdHook: expected a state, got nullptr");
  auto without_group = std::make_shared<PowerSgdState>(kNoGroup);
  expectRefused([&] { batchedPowerSgdHook(without_group); },
                "distalgo::hooks::batchedPowerSgdHook: expected a state with "
                "a process group, got null");
}

// Rank 0 would compress every matrix to nothing: training would stop,
// silently.
TEST(CommHookArguments, PowerSgdRankBelowOneIsRefused) {
  for (int rank : {0, -1}) {
    expectRefused(
        [&] {
          PowerSgdState(kNoGroup, {.matrix_approximation_rank = rank,
                                   .start_iteration = 2});
        },
        "PowerSgdState: matrix_approximation_rank must be at least 1, got " +
            std::to_string(rank));
  }
}

}  // namespace
