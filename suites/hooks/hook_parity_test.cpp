// Communication hooks against reference DDP: a table of hooks drives one
// parameterised suite; adding a hook is one row.

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/sgd.h>

#include <functional>
#include <string>
#include <vector>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/fp16_compress.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "ranktest/ranktest.h"

namespace {

using distalgo::ddp::CommHook;
using distalgo::ddp::DistributedDataParallel;

constexpr int kSteps = 3;
constexpr int kRows = 5;

// The parameters of the fixture MLP after kSteps of SGD, with `hook` (or
// reference DDP without one).
std::vector<at::Tensor> trainWith(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int rank,
    const std::function<void(DistributedDataParallel<torch::nn::Sequential>&)>&
        configure) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg);
  if (configure) configure(ddp);
  torch::optim::SGD sgd(model->parameters(), 0.1);
  for (int step = 0; step < kSteps; ++step) {
    const auto b = fixtures::rankBatch(step, rank, kRows, fixtures::kMlpInputs,
                                       fixtures::kMlpOutputs);
    distalgo::ddp::zeroGradients(*model);
    torch::nn::functional::mse_loss(ddp.forward(b.input), b.target).backward();
    sgd.step();
  }
  std::vector<at::Tensor> out;
  for (const auto& p : model->parameters()) out.push_back(p.detach().clone());
  return out;
}

// As trainWith, with the hook `hook` builds (none: reference DDP).
std::vector<at::Tensor> train(const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
                              int rank, const std::function<CommHook()>& hook) {
  if (!hook) return trainWith(pg, rank, nullptr);
  return trainWith(pg, rank, [&](auto& ddp) { ddp.registerCommHook(hook()); });
}

class CommHookParity : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }
};

RANKTEST_F(CommHookParity, AllreduceHookEqualsReferenceDdp) {
  const auto reference = train(pg(), rank(), nullptr);
  const auto hooked =
      train(pg(), rank(), [&] { return distalgo::hooks::allreduceHook(pg()); });
  // Dividing by a power of two is exact, so the order of the division and
  // the sum cannot matter; by 3 it rounds, differently in the reducer (which
  // scales while copying into the bucket) and in the hook.
  const bool exact = (worldSize() & (worldSize() - 1)) == 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    if (exact) {
      EXPECT_TRUE(at::equal(hooked[i], reference[i])) << "parameter " << i;
    } else {
      EXPECT_TRUE(at::allclose(hooked[i], reference[i], 1e-6, 1e-7))
          << "parameter " << i;
    }
  }
}

// float16 keeps 11 significant bits: gradients round at about 5e-4 relative,
// so after kSteps small steps parameters stay within this of reference DDP.
constexpr double kFp16Atol = 1e-3;

RANKTEST_F(CommHookParity, Fp16CompressHookIsWithinFp16ToleranceOfReference) {
  const auto reference = train(pg(), rank(), nullptr);
  const auto hooked = train(
      pg(), rank(), [&] { return distalgo::hooks::fp16CompressHook(pg()); });
  for (std::size_t i = 0; i < reference.size(); ++i) {
    EXPECT_TRUE(at::allclose(hooked[i], reference[i], 0, kFp16Atol))
        << "parameter " << i << ", largest difference "
        << (hooked[i] - reference[i]).abs().max().item<double>();
  }
  // Compression must change something, or it did not happen.
  bool any_difference = false;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    any_difference = any_difference || !at::equal(hooked[i], reference[i]);
  }
  EXPECT_TRUE(any_difference) << "fp16 compression left every bit unchanged";
}

RANKTEST_F(CommHookParity, Fp16WrapperOfAllreduceEqualsFp16HookExactly) {
  const auto hook = train(
      pg(), rank(), [&] { return distalgo::hooks::fp16CompressHook(pg()); });
  const auto wrapped = train(pg(), rank(), [&] {
    return distalgo::hooks::fp16CompressWrapper(
        distalgo::hooks::allreduceHook(pg()));
  });
  for (std::size_t i = 0; i < hook.size(); ++i) {
    EXPECT_TRUE(at::equal(wrapped[i], hook[i])) << "parameter " << i;
  }
}

// Bytes this rank puts into allreduce over kSteps, with the hook that
// `make_hook` builds on the counting group (none: reference DDP).
std::int64_t allreduceBytes(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, int rank,
    const std::function<CommHook(c10::intrusive_ptr<c10d::ProcessGroup>)>&
        make_hook) {
  auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg);
  std::function<CommHook()> hook;
  if (make_hook) hook = [&] { return make_hook(counting); };
  train(counting, rank, hook);
  return counting->traffic("allreduce").bytes;
}

RANKTEST_F(CommHookParity, Fp16CompressHookSendsHalfOfAllreducesBytes) {
  std::int64_t parameter_bytes = 0;
  for (const auto& p : fixtures::makeMlp(1)->parameters()) {
    parameter_bytes += p.numel() * p.element_size();
  }
  const auto reference = allreduceBytes(pg(), rank(), nullptr);
  const auto allreduce = allreduceBytes(pg(), rank(), [](auto group) {
    return distalgo::hooks::allreduceHook(group);
  });
  const auto fp16 = allreduceBytes(pg(), rank(), [](auto group) {
    return distalgo::hooks::fp16CompressHook(group);
  });
  EXPECT_EQ(reference, kSteps * parameter_bytes);
  EXPECT_EQ(allreduce, reference);
  EXPECT_EQ(2 * fp16, reference);
}

// c10d's built-in allreduce hook, registered by type, reduces like the
// default reducer path (exactly, at world sizes where dividing is exact).
RANKTEST_F(CommHookParity, BuiltinAllreduceHookEqualsReferenceDdp,
           ranktest::worldSizes({2, 4})) {
  const auto reference = train(pg(), rank(), nullptr);
  const auto builtin = trainWith(pg(), rank(), [](auto& ddp) {
    ddp.registerBuiltinCommHook(c10d::BuiltinCommHookType::ALLREDUCE);
  });
  for (std::size_t i = 0; i < reference.size(); ++i) {
    EXPECT_TRUE(at::equal(builtin[i], reference[i])) << "parameter " << i;
  }
}

RANKTEST_F(CommHookParity, NoopHookKeepsGradientsLocal) {
  // With no communication, each rank trains alone on its own data.
  const auto hooked =
      train(pg(), rank(), [] { return distalgo::hooks::noopHook(); });
  auto alone = fixtures::makeMlp(/*seed=*/1);
  torch::optim::SGD sgd(alone->parameters(), 0.1);
  for (int step = 0; step < kSteps; ++step) {
    const auto b = fixtures::rankBatch(
        step, rank(), kRows, fixtures::kMlpInputs, fixtures::kMlpOutputs);
    sgd.zero_grad();
    torch::nn::functional::mse_loss(alone->forward(b.input), b.target)
        .backward();
    sgd.step();
  }
  const auto expected = alone->parameters();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(at::allclose(hooked[i], expected[i], 1e-6, 1e-7))
        << "parameter " << i;
  }
}

RANKTEST_F(CommHookParity, RegisteringTwiceNamesBothHooks) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  ddp.registerCommHook(distalgo::hooks::allreduceHook(pg()), "allreduce");
  try {
    ddp.registerCommHook(distalgo::hooks::noopHook(), "noop");
    ADD_FAILURE() << "a second hook was accepted";
  } catch (const std::logic_error& error) {
    EXPECT_THAT(error.what(),
                testing::HasSubstr("cannot register hook 'noop': hook "
                                   "'allreduce' is registered already"));
  }
}

RANKTEST_F(CommHookParity, HookReturningTheWrongTypeFailsClearly) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  ddp.registerCommHook(
      [](c10d::GradBucket&) {
        auto future =
            c10::make_intrusive<c10::ivalue::Future>(c10::IntType::get());
        future->markCompleted(c10::IValue(int64_t{7}));
        return future;
      },
      "returns-an-int");
  const auto b = fixtures::rankBatch(0, rank(), kRows, fixtures::kMlpInputs,
                                     fixtures::kMlpOutputs);
  auto loss = torch::nn::functional::mse_loss(ddp.forward(b.input), b.target);
  try {
    loss.backward();
    ADD_FAILURE() << "backward accepted a hook result of the wrong type";
  } catch (const std::exception& error) {
    EXPECT_THAT(error.what(),
                testing::HasSubstr("communication hook 'returns-an-int' must "
                                   "return a future of a tensor"));
  }
}

}  // namespace
