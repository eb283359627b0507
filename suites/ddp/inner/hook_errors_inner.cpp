// Communication hooks that go wrong in every rank on purpose: one throws, one
// returns a future it never completes, two allgather different sizes; and a
// good hook in ranks that hang after it. Not registered with ctest:
// hook_errors_test.cpp runs this binary and checks that the report names the
// hook, the bucket, each rank and, for the throw, its line (the one whose
// trailing comment is THROW-SITE).

#include <torch/nn/functional/loss.h>

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <thread>
#include <vector>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "distalgo/hooks/default_hooks.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "ranktest/ranktest.h"

namespace {

using distalgo::ddp::DistributedDataParallel;
using distalgo::ddp::GradBucket;

[[gnu::noinline]] void throwFromHook() {
  throw std::runtime_error("the hook gave up");  // THROW-SITE
}

// Allgathers (rank + 1) * 256 floats: a different size in every rank.
[[gnu::noinline]] void allgatherRankSized(c10d::ProcessGroup& pg, int rank,
                                          int world_size) {
  const at::Tensor input = torch::ones({std::int64_t{rank + 1} * 256});
  std::vector<std::vector<at::Tensor>> outputs(1);
  for (int r = 0; r < world_size; ++r) {
    outputs[0].push_back(torch::empty_like(input));
  }
  std::vector<at::Tensor> inputs{input};
  pg.allgather(outputs, inputs)->wait();
}

class InnerHookErrors : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }

 protected:
  // One DDP training step with `hook` registered as `name`.
  void trainOneStep(const distalgo::ddp::CommHook& hook,
                    const std::string& name) {
    auto model = fixtures::makeMlp(/*seed=*/1);
    DistributedDataParallel ddp(model, pg());
    ddp.registerCommHook(hook, name);
    const auto b = fixtures::rankBatch(0, rank(), 5, fixtures::kMlpInputs,
                                       fixtures::kMlpOutputs);
    torch::nn::functional::mse_loss(ddp.forward(b.input), b.target).backward();
  }

  // A step whose hook 'uneven' allgathers a size that differs by rank
  // before the allreduce.
  void trainWithUnevenAllgather() {
    auto allreduce = distalgo::hooks::allreduceHook(pg());
    trainOneStep(
        [&](GradBucket& bucket) {
          allgatherRankSized(*pg(), rank(), worldSize());
          return allreduce(bucket);
        },
        "uneven");
  }
};

RANKTEST_F(InnerHookErrors, HookThrows) {
  trainOneStep(
      [&](GradBucket&) -> c10::intrusive_ptr<c10::ivalue::Future> {
        throwFromHook();
        return {};
      },
      "thrower");
}

RANKTEST_F(InnerHookErrors, HookFutureNeverCompletes) {
  trainOneStep(
      [](GradBucket&) {
        return c10::make_intrusive<c10::ivalue::Future>(c10::TensorType::get());
      },
      "never");
}

// Its hook's futures complete: at the deadline no note may name the hook.
RANKTEST_F(InnerHookErrors, HookCompletesThenTheRankHangs) {
  trainOneStep(distalgo::hooks::allreduceHook(pg()), "fine");
  std::this_thread::sleep_for(std::chrono::hours(1));
}

RANKTEST_F(InnerHookErrors, HookAllgathersDifferentSizes) {
  trainWithUnevenAllgather();
}

RANKTEST_F(InnerHookErrors, HookAllgathersDifferentSizesChecked,
           ranktest::checkCollectives()) {
  trainWithUnevenAllgather();
}

}  // namespace
