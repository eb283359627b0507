// The hook API around the table: built-in hooks, what a hook sees of its
// bucket, and the errors of registering and of a wrong result.

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <torch/nn/functional/loss.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/fp16_compress.h"
#include "fixtures/compare.h"
#include "fixtures/ddp_training.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "fixtures/training.h"
#include "hookparity/hook_parity.h"

namespace {

using distalgo::ddp::DistributedDataParallel;
using distalgo::ddp::GradBucket;

constexpr int kSteps = 3;
constexpr double kLearningRate = 0.1;

class CommHookApi : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 3}}; }

 protected:
  at::Tensor loss(DistributedDataParallel<torch::nn::Sequential>& ddp) {
    const auto b = fixtures::rankBatch(0, rank(), 5, fixtures::kMlpInputs,
                                       fixtures::kMlpOutputs);
    return torch::nn::functional::mse_loss(ddp.forward(b.input), b.target);
  }
};

// c10d's built-in allreduce hook, registered by type, reduces like the
// default reducer path (exactly, at world sizes where dividing is exact).
RANKTEST_F(CommHookApi, BuiltinAllreduceHookEqualsReferenceDdp,
           ranktest::worldSizes({2, 4})) {
  const auto reference =
      hookparity::trainMlp(pg(), rank(), kSteps, kLearningRate, {});
  const auto builtin = fixtures::trainUnderDdp(
      pg(),
      {.rank = rank(),
       .rows = hookparity::kRows,
       .steps = kSteps,
       .make_step = [](fixtures::SequentialDdp& ddp) {
         ddp.registerBuiltinCommHook(c10d::BuiltinCommHookType::ALLREDUCE);
         return [&ddp] {
           fixtures::sgdUpdate(ddp.module()->parameters(), kLearningRate);
         };
       }});
  fixtures::expectSameTensors(builtin.parameters, reference.parameters,
                              fixtures::kExact);
}

RANKTEST_F(CommHookApi, Fp16WrapperOfAllreduceEqualsFp16HookExactly) {
  const auto hook = hookparity::trainMlp(
      pg(), rank(), kSteps, kLearningRate, [](const auto& group) {
        return distalgo::hooks::fp16CompressHook(group);
      });
  const auto wrapped = hookparity::trainMlp(
      pg(), rank(), kSteps, kLearningRate, [](const auto& group) {
        return distalgo::hooks::fp16CompressWrapper(
            distalgo::hooks::allreduceHook(group));
      });
  const auto reference =
      hookparity::trainMlp(pg(), rank(), kSteps, kLearningRate, {});
  fixtures::expectSameTensors(wrapped.parameters, hook.parameters,
                              fixtures::kExact);
  // Or fp16 changed nothing and proves nothing.
  EXPECT_GT(fixtures::largestDifference(hook.parameters, reference.parameters),
            0)
      << "fp16 compression left every bit unchanged";
}

// The bucket a hook receives: its gradients are views of its buffer, one per
// parameter and shaped like it, and the last bucket says so.
RANKTEST_F(CommHookApi, BucketShowsItsGradientsAndParameters) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  // One bucket per parameter, so that there are several, once the first
  // iteration (one bucket of every gradient, as in PyTorch) has passed.
  DistributedDataParallel ddp(
      model, pg(), {.bucket_cap_mb = 1e-6, .first_bucket_cap_bytes = 1});
  std::vector<std::size_t> indices;
  std::vector<bool> last;
  auto allreduce = distalgo::hooks::allreduceHook(pg());
  ddp.registerCommHook(
      [&](GradBucket& bucket) {
        indices.push_back(bucket.index());
        last.push_back(bucket.isLast());
        const auto gradients = bucket.gradients();
        const auto parameters = bucket.parameters();
        EXPECT_EQ(gradients.size(), parameters.size());
        std::int64_t numel = 0;
        for (std::size_t i = 0; i < gradients.size(); ++i) {
          EXPECT_EQ(gradients[i].sizes(), parameters[i].sizes());
          numel += gradients[i].numel();
        }
        EXPECT_EQ(numel, bucket.buffer().numel());
        return allreduce(bucket);
      },
      "inspecting");
  loss(ddp).backward();
  ASSERT_EQ(indices, std::vector<std::size_t>{0});
  EXPECT_EQ(last, std::vector<bool>{true});
  indices.clear();
  last.clear();
  loss(ddp).backward();
  const std::size_t buckets = model->parameters().size();
  ASSERT_EQ(indices.size(), buckets);
  std::sort(indices.begin(), indices.end());
  for (std::size_t i = 0; i < buckets; ++i) EXPECT_EQ(indices[i], i);
  EXPECT_EQ(std::count(last.begin(), last.end(), true), 1);
}

RANKTEST_F(CommHookApi, RegisteringTwiceNamesBothHooks) {
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

RANKTEST_F(CommHookApi, HookReturningTheWrongTypeFailsClearly) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  ddp.registerCommHook(
      [](GradBucket&) {
        auto future =
            c10::make_intrusive<c10::ivalue::Future>(c10::IntType::get());
        future->markCompleted(c10::IValue(int64_t{7}));
        return future;
      },
      "returns-an-int");
  auto value = loss(ddp);
  try {
    value.backward();
    ADD_FAILURE() << "backward accepted a hook result of the wrong type";
  } catch (const std::exception& error) {
    EXPECT_THAT(error.what(),
                testing::HasSubstr("communication hook 'returns-an-int' must "
                                   "return a future of a tensor"));
  }
}

// A value no gradient of the fixture MLP reaches: where it shows in a
// gradient, a hook's result was written.
constexpr float kMarker = 1e6F;

// Whether any gradient of `model` holds kMarker.
bool markerWritten(torch::nn::Module& model) {
  for (const auto& p : model.parameters()) {
    if (p.grad().defined() && p.grad().eq(kMarker).any().item<bool>()) {
      return true;
    }
  }
  return false;
}

// A hook whose future holds `make(bucket buffer)`.
distalgo::ddp::CommHook returning(
    std::function<at::Tensor(const at::Tensor&)> make) {
  return [make = std::move(make)](GradBucket& bucket) {
    auto future =
        c10::make_intrusive<c10::ivalue::Future>(c10::TensorType::get());
    future->markCompleted(make(bucket.buffer()));
    return future;
  };
}

// Runs backward with `hook` on the fixture MLP (one bucket) and expects it
// to fail with `message`, without any of the hook's values in a gradient.
void expectRefusedResult(const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
                         int rank, const distalgo::ddp::CommHook& hook,
                         const std::string& message) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg);
  ddp.registerCommHook(hook, "misfit");
  const auto b = fixtures::rankBatch(0, rank, 5, fixtures::kMlpInputs,
                                     fixtures::kMlpOutputs);
  auto value = torch::nn::functional::mse_loss(ddp.forward(b.input), b.target);
  EXPECT_THAT(
      [&] { value.backward(); },
      testing::ThrowsMessage<std::runtime_error>(testing::HasSubstr(message)));
  EXPECT_FALSE(markerWritten(*model));
}

// The MLP's 212 parameters fill its one bucket.
RANKTEST_F(CommHookApi, HookResultLargerThanItsBucketFailsNamingIt) {
  expectRefusedResult(
      pg(), rank(), returning([](const at::Tensor& buffer) {
        return at::full({buffer.numel() + 1}, kMarker, buffer.options());
      }),
      "communication hook 'misfit' on rank " + std::to_string(rank()) +
          " (bucket 0) returned 213 elements of Float for a bucket of 212 "
          "elements of Float; no gradient was written");
}

RANKTEST_F(CommHookApi, HookResultSmallerThanItsBucketFailsNamingIt) {
  expectRefusedResult(
      pg(), rank(), returning([](const at::Tensor& buffer) {
        return at::full({buffer.numel() - 1}, kMarker, buffer.options());
      }),
      "(bucket 0) returned 211 elements of Float for a bucket of 212");
}

RANKTEST_F(CommHookApi, HookResultOfAnotherDtypeFailsNamingIt) {
  expectRefusedResult(
      pg(), rank(), returning([](const at::Tensor& buffer) {
        return at::full({buffer.numel()}, kMarker,
                        buffer.options().dtype(at::kDouble));
      }),
      "(bucket 0) returned 212 elements of Double for a bucket of 212 "
      "elements of Float");
}

// With several buckets, a bad result in the last one stops backward before
// the good results of the others are written.
RANKTEST_F(CommHookApi, BadResultInOneBucketWritesNoBucketsGradients) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  // One bucket per parameter from the second iteration on.
  DistributedDataParallel ddp(
      model, pg(), {.bucket_cap_mb = 1e-6, .first_bucket_cap_bytes = 1});
  const std::size_t last = model->parameters().size() - 1;
  bool first_pass = true;
  auto allreduce = distalgo::hooks::allreduceHook(pg());
  ddp.registerCommHook(
      [&](GradBucket& bucket) {
        if (first_pass) return allreduce(bucket);
        const at::Tensor& buffer = bucket.buffer();
        const std::int64_t n =
            bucket.index() == last ? buffer.numel() + 1 : buffer.numel();
        return returning([n](const at::Tensor& like) {
          return at::full({n}, kMarker, like.options());
        })(bucket);
      },
      "misfit");
  loss(ddp).backward();
  first_pass = false;
  auto value = loss(ddp);
  EXPECT_THAT([&] { value.backward(); },
              testing::ThrowsMessage<std::runtime_error>(testing::HasSubstr(
                  "(bucket " + std::to_string(last) + ") returned")));
  EXPECT_FALSE(markerWritten(*model));
}

}  // namespace
