// ZeRO stepped from DDP's communication hook (overlap.h) against DDP plus
// ZeRO's step(), after every iteration, warm-up included, and its refusals.

#include "distalgo/zero/overlap.h"

#include <gmock/gmock.h>
#include <torch/nn/functional/loss.h>
#include <torch/optim/adam.h>
#include <torch/optim/sgd.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/fp16_compress.h"
#include "distalgo/hooks/powersgd.h"
#include "distalgo/join/join.h"
#include "distalgo/zero/state_bytes.h"
#include "distalgo/zero/zero_redundancy_optimizer.h"
#include "fixtures/compare.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "fixtures/training.h"
#include "ranktest/counting_process_group.h"
#include "ranktest/ranktest.h"
#include "torch_compat/grad_bucket.h"
#include "zero_parity.h"

namespace zero_suite {
namespace {

using distalgo::ddp::DdpOptions;
using distalgo::ddp::DistributedDataParallel;
using distalgo::zero::ZeroRedundancyOptimizer;
using testing::HasSubstr;
using testing::ThrowsMessage;

constexpr int kIterations = 6;  // warm-up 0 and 1, then overlapped

enum class Hook { kAfterLastBucket, kInterleaved };

// The MLP's 4 parameters (128, 16, 64, 4 floats) in 4 buckets, in 2, or 1.
struct BucketCap {
  std::string name;
  double bucket_cap_mb;
  std::size_t first_bucket_cap_bytes;
  std::size_t buckets;  // after DDP's rebuild
};
const std::vector<BucketCap> kCaps = {
    {"a bucket per parameter", 0, 0, 4},
    {"300-byte buckets", 300.0 / (1024 * 1024), 300, 2},
    {"one bucket", 25, std::size_t{1024} * 1024, 1}};

// The MLP with DDP and a ZeRO over twoGroups(), training on the same batches.
struct Trainer {
  Trainer(const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
          const OptimizerCase& optimizer, DdpOptions options, bool overlap)
      : model(fixtures::makeMlp(/*seed=*/1)),
        ddp(model, pg, options),
        zero(twoGroups(model, optimizer), pg, optimizer.factory,
             {.overlap_with_ddp = overlap}) {}

  void iterate(int i, int rank, bool step) {
    distalgo::ddp::zeroGradients(*model);
    backward(i, rank);
    if (step) zero.step();
  }
  void backward(int i, int rank) {
    const auto b = fixtures::rankBatch(
        i, rank, kParityRows, fixtures::kMlpInputs, fixtures::kMlpOutputs);
    torch::nn::functional::mse_loss(ddp.forward(b.input), b.target).backward();
  }

  torch::nn::Sequential model;
  DistributedDataParallel<torch::nn::Sequential> ddp;
  ZeroRedundancyOptimizer zero;
};

class ZeroOverlap : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2, 3}}; }

 protected:
  // `hook` over `wrapped` (default: allreduceHook) for t's DDP and ZeRO.
  distalgo::ddp::CommHook overlapHook(Trainer& t, Hook hook, bool shard,
                                      distalgo::ddp::CommHook wrapped = {}) {
    if (!wrapped) wrapped = distalgo::hooks::allreduceHook(pg());
    return hook == Hook::kAfterLastBucket
               ? distalgo::zero::hookWithZeroStep(wrapped, t.ddp, t.zero, shard)
               : distalgo::zero::hookWithZeroStepInterleaved(wrapped, t.ddp,
                                                             t.zero, shard);
  }

  // Trains reference (DDP with `wrap()`'s hook, then step()) and overlapped
  // (`hook` over another `wrap()`) side by side and compares the parameters
  // after every iteration. The same reduction on both sides: allreduceHook
  // divides before the sum, DDP without a hook multiplies by 1/W (not exact
  // for W = 3).
  void expectParity(Hook hook, bool shard, const OptimizerCase& optimizer,
                    const BucketCap& cap, fixtures::Tolerance tolerance,
                    const std::function<distalgo::ddp::CommHook()>& wrap) {
    const DdpOptions options{
        .bucket_cap_mb = cap.bucket_cap_mb,
        .first_bucket_cap_bytes = cap.first_bucket_cap_bytes};
    Trainer reference(pg(), optimizer, options, /*overlap=*/false);
    Trainer overlapped(pg(), optimizer, options, /*overlap=*/true);
    reference.ddp.registerCommHook(wrap());
    overlapped.ddp.registerCommHook(
        overlapHook(overlapped, hook, shard, wrap()), "zero");
    const auto initial = fixtures::snapshot(*overlapped.model);
    for (int i = 0; i < kIterations; ++i) {
      SCOPED_TRACE("iteration " + std::to_string(i));
      reference.iterate(i, rank(), /*step=*/true);
      overlapped.iterate(i, rank(), /*step=*/false);
      const auto actual = fixtures::snapshot(*overlapped.model);
      fixtures::expectSameTensors(actual, fixtures::snapshot(*reference.model),
                                  tolerance);
      // Every iteration steps, the warm-up ones too.
      if (i == 0) {
        EXPECT_FALSE(actual[0].equal(initial[0]));
      }
    }
    EXPECT_EQ(overlapped.ddp.reducer().get_grad_buckets().size(), cap.buckets);
  }
};

std::string traceOf(Hook hook, bool shard, const BucketCap& cap,
                    const OptimizerCase& optimizer) {
  return std::string(hook == Hook::kAfterLastBucket ? "after last bucket"
                                                    : "interleaved") +
         (shard ? ", sharded buckets, " : ", whole buckets, ") + cap.name +
         ", " + optimizer.name;
}

// SGD and Adam step each parameter alone with the same kernels on the same
// reduced gradients, whichever rank owns it: both are bit for bit.
RANKTEST_F(ZeroOverlap, MatchesDdpPlusZeroAfterEveryIteration) {
  const auto cases = optimizerCases();
  for (const auto& optimizer : {cases[0], cases[1]}) {  // SGD, Adam
    for (const Hook hook : {Hook::kAfterLastBucket, Hook::kInterleaved}) {
      for (const bool shard : {false, true}) {
        for (const auto& cap : kCaps) {
          SCOPED_TRACE(traceOf(hook, shard, cap, optimizer));
          expectParity(hook, shard, optimizer, cap, fixtures::kExact,
                       [&] { return distalgo::hooks::allreduceHook(pg()); });
        }
      }
    }
  }
}

// The warm-up ends with the first iteration whose buckets are final: the
// state then moves out of the greedy local optimizer.
RANKTEST_F(ZeroOverlap, WarmUpEndsOnceDdpBucketsAreFinal) {
  const auto sgd = optimizerCases()[0];
  struct Mode {
    std::string name;
    DdpOptions options;
    int last_warm_up;
  };
  const std::vector<Mode> modes = {
      {"default", {.bucket_cap_mb = 0, .first_bucket_cap_bytes = 0}, 1},
      {"static graph",
       {.bucket_cap_mb = 0, .first_bucket_cap_bytes = 0, .static_graph = true},
       2},
      {"find unused parameters",
       {.bucket_cap_mb = 0,
        .first_bucket_cap_bytes = 0,
        .find_unused_parameters = true},
       0},
      {"gradient as bucket view",
       {.bucket_cap_mb = 0,
        .first_bucket_cap_bytes = 0,
        .gradient_as_bucket_view = true},
       1}};
  for (const auto& mode : modes) {
    for (const Hook hook : {Hook::kAfterLastBucket, Hook::kInterleaved}) {
      SCOPED_TRACE(mode.name);
      Trainer reference(pg(), sgd, mode.options, /*overlap=*/false);
      Trainer overlapped(pg(), sgd, mode.options, /*overlap=*/true);
      reference.ddp.registerCommHook(distalgo::hooks::allreduceHook(pg()));
      overlapped.ddp.registerCommHook(overlapHook(overlapped, hook, false));
      for (int i = 0; i < kIterations; ++i) {
        SCOPED_TRACE("iteration " + std::to_string(i));
        reference.iterate(i, rank(), true);
        overlapped.iterate(i, rank(), false);
        fixtures::expectSameTensors(fixtures::snapshot(*overlapped.model),
                                    fixtures::snapshot(*reference.model),
                                    fixtures::kExact);
        // Every rank owns a parameter under the greedy partition (4 > W).
        EXPECT_EQ(overlapped.zero.localOptimizer().state().empty(),
                  i >= mode.last_warm_up);
      }
    }
  }
}

RANKTEST_F(ZeroOverlap, LearningRateSetOnTheLocalOptimizerApplies) {
  const auto sgd = optimizerCases()[0];
  Trainer reference(pg(), sgd, {}, false);
  Trainer overlapped(pg(), sgd, {}, true);
  reference.ddp.registerCommHook(distalgo::hooks::allreduceHook(pg()));
  overlapped.ddp.registerCommHook(
      overlapHook(overlapped, Hook::kInterleaved, true));
  for (int i = 0; i < kIterations; ++i) {
    if (i == 3) {
      for (auto* zero : {&reference.zero, &overlapped.zero}) {
        for (auto& group : zero->localOptimizer().param_groups()) {
          group.options().set_lr(group.options().get_lr() / 2);
        }
      }
    }
    reference.iterate(i, rank(), true);
    overlapped.iterate(i, rank(), false);
  }
  fixtures::expectSameTensors(fixtures::snapshot(*overlapped.model),
                              fixtures::snapshot(*reference.model),
                              fixtures::kExact);
}

// Gradients accumulated under noSync are reduced and stepped with the next
// synced backward, as step() after it would, also across the warm-up's end.
RANKTEST_F(ZeroOverlap, NoSyncIterationsStepWithTheNextSyncedOne) {
  const auto sgd = optimizerCases()[0];
  for (const Hook hook : {Hook::kAfterLastBucket, Hook::kInterleaved}) {
    Trainer reference(pg(), sgd, {.bucket_cap_mb = 0}, false);
    Trainer overlapped(pg(), sgd, {.bucket_cap_mb = 0}, true);
    reference.ddp.registerCommHook(distalgo::hooks::allreduceHook(pg()));
    overlapped.ddp.registerCommHook(overlapHook(overlapped, hook, true));
    for (int i = 0; i < 8; ++i) {
      for (auto* t : {&reference, &overlapped}) {
        distalgo::ddp::zeroGradients(*t->model);
        if (i % 3 == 0) {
          auto no_sync = t->ddp.noSync();
          t->backward(100 + i, rank());
        }
        t->backward(i, rank());
      }
      reference.zero.step();
      fixtures::expectSameTensors(fixtures::snapshot(*overlapped.model),
                                  fixtures::snapshot(*reference.model),
                                  fixtures::kExact);
    }
  }
}

// Another wrapped hook: the steps use its future's result, as the reducer
// does for the gradients.
RANKTEST_F(ZeroOverlap, WrapsAnyHookFp16Compress) {
  for (const Hook hook : {Hook::kAfterLastBucket, Hook::kInterleaved}) {
    expectParity(hook, /*shard=*/true, optimizerCases()[0], kCaps[1],
                 fixtures::kExact,
                 [&] { return distalgo::hooks::fp16CompressHook(pg()); });
  }
}

// PowerSGD over several buckets: its chains of collectives (P, then Q, from
// callbacks) and ZeRO's broadcasts in one order on every rank. Both sides
// compress alike from iteration 2 (the same seed), so parity is exact.
RANKTEST_F(ZeroOverlap, WrapsPowerSgdOverSeveralBuckets,
           ranktest::worldSizes({2, 3, 4})) {
  for (const bool batched : {false, true}) {
    for (const Hook hook : {Hook::kAfterLastBucket, Hook::kInterleaved}) {
      for (const auto& cap : {kCaps[0], kCaps[1]}) {
        SCOPED_TRACE(traceOf(hook, /*shard=*/true, cap, optimizerCases()[0]) +
                     (batched ? ", batched PowerSGD" : ", PowerSGD"));
        expectParity(
            hook, /*shard=*/true, optimizerCases()[0], cap, fixtures::kExact,
            [&] {
              auto state = std::make_shared<distalgo::hooks::PowerSgdState>(
                  pg(),
                  distalgo::hooks::PowerSgdOptions{
                      .matrix_approximation_rank = 1, .start_iteration = 2});
              return batched ? distalgo::hooks::batchedPowerSgdHook(state)
                             : distalgo::hooks::powerSgdHook(state);
            });
      }
    }
  }
}

// Once overlapped, the interleaved hook has stepped bucket 0 (on its owner,
// rank 0) when bucket 1 is handed to the wrapped hook; the other hook steps
// after the last bucket only.
RANKTEST_F(ZeroOverlap, InterleavedStepsABucketBeforeTheNextIsReduced) {
  const auto sgd = optimizerCases()[0];
  for (const Hook hook : {Hook::kAfterLastBucket, Hook::kInterleaved}) {
    Trainer t(pg(), sgd, {.bucket_cap_mb = 0, .first_bucket_cap_bytes = 0},
              true);
    at::Tensor first, before;  // bucket 0's first parameter, its value
    bool changed = false;
    auto allreduce = distalgo::hooks::allreduceHook(pg());
    distalgo::ddp::CommHook watching = [&](distalgo::ddp::GradBucket& b) {
      if (b.index() == 0) {
        first = b.parameters()[0];
        before = first.detach().clone();
      } else if (b.index() == 1) {
        changed = !first.equal(before);
      }
      return allreduce(b);
    };
    t.ddp.registerCommHook(overlapHook(t, hook, false, watching));
    for (int i = 0; i < 4; ++i) t.iterate(i, rank(), false);
    // The other ranks take the broadcast values after the last bucket.
    EXPECT_EQ(changed, hook == Hook::kInterleaved && rank() == 0);
  }
}

// One broadcast per piece once overlapped (per parameter in the warm-up).
RANKTEST_F(ZeroOverlap, BroadcastsOnePiecePerBucket) {
  const auto sgd = optimizerCases()[0];
  for (const bool shard : {false, true}) {
    auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
    Trainer t(counting, sgd, {.bucket_cap_mb = 25}, true);
    t.ddp.registerCommHook(overlapHook(t, Hook::kInterleaved, shard));
    for (int i = 0; i < 3; ++i) t.iterate(i, rank(), false);
    counting->reset();
    t.iterate(3, rank(), false);
    // One bucket: whole to rank 0, or cut into a piece per rank.
    EXPECT_EQ(counting->traffic("broadcast").calls, shard ? worldSize() : 1);
  }
}

RANKTEST_F(ZeroOverlap, HookNeedsZeroBuiltForOverlap) {
  const auto sgd = optimizerCases()[0];
  Trainer plain(pg(), sgd, {}, /*overlap=*/false);
  EXPECT_THAT([&] { overlapHook(plain, Hook::kAfterLastBucket, false); },
              ThrowsMessage<std::invalid_argument>(
                  HasSubstr("built without ZeroOptions::overlap_with_ddp")));
  Trainer overlapped(pg(), sgd, {}, /*overlap=*/true);
  overlapHook(overlapped, Hook::kInterleaved, false);
  EXPECT_THAT([&] { overlapHook(overlapped, Hook::kAfterLastBucket, false); },
              ThrowsMessage<std::logic_error>(
                  HasSubstr("already driven by another hook")));
}

RANKTEST_F(ZeroOverlap, StepAddParamGroupJoinAndStateDictAreRefused) {
  const auto sgd = optimizerCases()[0];
  Trainer t(pg(), sgd, {}, /*overlap=*/true);
  t.ddp.registerCommHook(overlapHook(t, Hook::kAfterLastBucket, false));
  t.iterate(0, rank(), /*step=*/false);
  EXPECT_THAT([&] { t.zero.step(); },
              ThrowsMessage<std::logic_error>(
                  HasSubstr("step() on rank " + std::to_string(rank()) +
                            ": built with overlap_with_ddp")));
  EXPECT_THAT(
      [&] {
        t.zero.addParamGroup(torch::optim::OptimizerParamGroup(
            std::vector<at::Tensor>{at::zeros({2}).requires_grad_()}));
      },
      ThrowsMessage<std::logic_error>(HasSubstr("addParamGroup()")));
  EXPECT_THAT(
      [&] {
        distalgo::join::Join join({&t.ddp, &t.zero});
      },
      ThrowsMessage<std::logic_error>(HasSubstr("Join on rank")));
  // The state lives in per-bucket optimizers after the warm-up: refused
  // before any collective, on every rank alike.
  EXPECT_THAT([&] { t.zero.consolidateStateDict(0); },
              ThrowsMessage<std::logic_error>(
                  HasSubstr("consolidateStateDict() on rank")));
  EXPECT_THAT(
      [&] { t.zero.loadStateDict("state"); },
      ThrowsMessage<std::logic_error>(HasSubstr("loadStateDict() on rank")));
}

// After the warm-up the Adam state lives in the hook's per-bucket
// optimizers: stateBytes() counts it there, the ranks' shares add up to the
// unsharded state, and no rank holds it all.
RANKTEST_F(ZeroOverlap, StateBytesCountsThePerBucketOptimizers) {
  const auto adam = optimizerCases()[1];
  const DdpOptions a_bucket_per_parameter{.bucket_cap_mb = 0,
                                          .first_bucket_cap_bytes = 0};
  Trainer t(pg(), adam, a_bucket_per_parameter, /*overlap=*/true);
  t.ddp.registerCommHook(overlapHook(t, Hook::kAfterLastBucket, false));
  Trainer plain(pg(), adam, a_bucket_per_parameter, /*overlap=*/false);
  for (int i = 0; i < kIterations; ++i) {
    t.iterate(i, rank(), /*step=*/false);
    plain.iterate(i, rank(), /*step=*/true);
  }
  EXPECT_EQ(distalgo::zero::optimizerStateBytes(t.zero.localOptimizer()), 0);
  std::vector<at::Tensor> sum{at::full({1}, t.zero.stateBytes(), at::kLong)};
  pg()->allreduce(sum)->wait();
  std::vector<at::Tensor> unsharded{
      at::full({1}, plain.zero.stateBytes(), at::kLong)};
  pg()->allreduce(unsharded)->wait();
  EXPECT_EQ(sum[0].item<std::int64_t>(), unsharded[0].item<std::int64_t>());
  // The MLP's Adam state: 2 tensors of 212 floats in all.
  EXPECT_EQ(sum[0].item<std::int64_t>(), 2 * 212 * 4);
  EXPECT_LT(t.zero.stateBytes(), sum[0].item<std::int64_t>());
}

RANKTEST_F(ZeroOverlap, DdpParameterMissingFromZeroIsRefused) {
  auto model = fixtures::makeMlp(/*seed=*/1);
  DistributedDataParallel ddp(model, pg());
  const auto sgd = optimizerCases()[0];
  ZeroRedundancyOptimizer zero(std::vector<at::Tensor>{model->parameters()[0]},
                               pg(), sgd.factory, {.overlap_with_ddp = true});
  ddp.registerCommHook(distalgo::zero::hookWithZeroStep(
      distalgo::hooks::allreduceHook(pg()), ddp, zero));
  const auto iterate = [&](int i) {
    const auto b = fixtures::rankBatch(
        i, rank(), kParityRows, fixtures::kMlpInputs, fixtures::kMlpOutputs);
    torch::nn::functional::mse_loss(ddp.forward(b.input), b.target).backward();
  };
  iterate(0);  // a warm-up step of the one parameter ZeRO holds
  // The buckets are final after this one: the partition is built.
  EXPECT_THAT([&] { iterate(1); },
              ThrowsMessage<std::logic_error>(HasSubstr(
                  "is not a parameter of the ZeroRedundancyOptimizer")));
}

// What a rank joined under ddp.join() would do: run the hook on a bucket
// outside backward.
RANKTEST_F(ZeroOverlap, HookOutsideBackwardIsRefused) {
  const auto sgd = optimizerCases()[0];
  for (const Hook hook : {Hook::kAfterLastBucket, Hook::kInterleaved}) {
    SCOPED_TRACE(hook == Hook::kInterleaved ? "interleaved" : "after last");
    Trainer t(pg(), sgd, {}, /*overlap=*/true);
    auto comm_hook = overlapHook(t, hook, false);
    const auto p = t.model->parameters()[0];
    const at::Tensor buffer = at::zeros({p.numel()});
    auto c10d_bucket = torch_compat::makeGradBucket(
        0, 1, buffer, {0}, {static_cast<std::size_t>(p.numel())}, {p.sizes()},
        {p});
    distalgo::ddp::GradBucket bucket(c10d_bucket);
    EXPECT_THAT([&] { comm_hook(bucket); },
                ThrowsMessage<std::logic_error>(
                    HasSubstr("called outside a backward pass")));
  }
}

RANKTEST_F(ZeroOverlap, BucketViewIsRefused) {
  auto model = fixtures::makeMlp(1);
  EXPECT_THAT(
      [&] {
        ZeroRedundancyOptimizer zero(
            model->parameters(), pg(), optimizerCases()[0].factory,
            {.parameters_as_bucket_view = true, .overlap_with_ddp = true});
      },
      ThrowsMessage<std::invalid_argument>(
          HasSubstr("does not support parameters_as_bucket_view")));
}

}  // namespace
}  // namespace zero_suite
