// DDP on uneven inputs under Join: after the join every rank holds the model
// of a single-process replay in which, at each step, only the ranks with
// inputs left contribute (fixtures::replayDataParallel).

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <torch/nn/functional/loss.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "distalgo/hooks/bf16_compress.h"
#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/fp16_compress.h"
#include "distalgo/hooks/powersgd.h"
#include "distalgo/hooks/quantization.h"
#include "fixtures/bucketed_models.h"
#include "fixtures/models.h"
#include "fixtures/rank_data.h"
#include "fixtures/replay.h"
#include "fixtures/training.h"
#include "ranktest/ranktest.h"
#include "uneven_inputs.h"

namespace join_suite {
namespace {

using distalgo::ddp::CommHook;
using distalgo::ddp::DdpOptions;
using distalgo::ddp::DistributedDataParallel;
using Group = c10::intrusive_ptr<c10d::ProcessGroup>;

constexpr int kRows = 5;
constexpr double kUnevenLearningRate = 0.1;
constexpr int kBaseInputs = 3;  // rank r trains on 3 + offset(r) batches

struct UnevenCase {
  std::string name;
  torch::nn::Sequential (*make)(std::uint64_t seed);
  DdpOptions options;
  bool divide_by_initial_world_size = true;
  std::function<CommHook(Group)> hook;  // none: the reducer's allreduce
  // Largest parameter distance from the replay: 0 for the exact float
  // tolerance; a lossy hook's own bound; negative: only check that all ranks
  // end equal (the replay does not model the hook).
  double tolerance = 0;
  // Give rank r the inputs of rank W-1-r in the offset table, so that the
  // last joiner and the order of joining change.
  bool reversed_offsets = false;
  int base_inputs = kBaseInputs;
  int features = fixtures::kMlpInputs;  // of the model's input rows
};

torch::nn::Sequential makeUnused(std::uint64_t seed) {
  return torch::nn::Sequential(fixtures::makeUnusedParameterNet(seed));
}

class JoinDdp : public ranktest::DistributedTestWithParam<UnevenCase> {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }
  static std::string paramName(const UnevenCase& row, std::size_t) {
    return row.name;
  }

 protected:
  fixtures::Batch batch(int step, int rank) const {
    return fixtures::rankBatch(step, rank, kRows, param().features,
                               fixtures::kMlpOutputs);
  }

  int inputsOfRank(int r) const {
    const int source = param().reversed_offsets ? worldSize() - 1 - r : r;
    return inputsOf(source, worldSize(), param().base_inputs);
  }
  int inputs() const { return inputsOfRank(rank()); }

  // Trains this rank's inputs through DDP inside a Join.
  torch::nn::Sequential trainUnderJoin(int* authoritative_rank) {
    const UnevenCase& row = param();
    auto model = row.make(/*seed=*/1);
    DistributedDataParallel ddp(model, pg(), row.options);
    if (row.hook) ddp.registerCommHook(row.hook(pg()), row.name);
    auto join = ddp.join(row.divide_by_initial_world_size);
    fixtures::sgdSteps(model->parameters(), inputs(), kUnevenLearningRate,
                       [&](int step) {
                         const auto b = batch(step, rank());
                         return torch::nn::functional::mse_loss(
                             ddp.forward(b.input), b.target);
                       });
    join.finish();
    *authoritative_rank = ddp.authoritativeRank();
    return model;
  }

  // The replayed model, and each rank's buffers.
  struct Replayed {
    torch::nn::Sequential model;
    std::vector<fixtures::BufferState> buffers;
  };
  Replayed replay() const {
    const UnevenCase& row = param();
    auto model = row.make(/*seed=*/1);
    std::vector<int> all_inputs;
    for (int r = 0; r < worldSize(); ++r) {
      all_inputs.push_back(inputsOfRank(r));
    }
    auto buffers = fixtures::replayDataParallel(
        *model,
        {.world_size = worldSize(),
         .learning_rate = kUnevenLearningRate,
         .broadcast_buffers = row.options.broadcast_buffers,
         .inputs = all_inputs,
         .divide_by_initial_world_size = row.divide_by_initial_world_size},
        [&](int step, int r) {
          const auto b = batch(step, r);
          return torch::nn::functional::mse_loss(model->forward(b.input),
                                                 b.target);
        });
    return {model, std::move(buffers)};
  }

  // Every rank's tensor equals rank 0's, bit for bit.
  void expectSameOnEveryRank(const at::Tensor& t, const std::string& what) {
    std::vector<at::Tensor> mine{t.detach().clone()};
    pg()->broadcast(mine)->wait();
    EXPECT_TRUE(at::equal(mine[0], t)) << what << " differs from rank 0's";
  }
};

RANKTEST_P(JoinDdp, UnevenInputsEqualTheReplay) {
  int authoritative = -1;
  auto model = trainUnderJoin(&authoritative);
  // The highest rank among those with the most inputs.
  int last_joiner = 0;
  for (int r = 0; r < worldSize(); ++r) {
    if (inputsOfRank(r) == maxInputs(worldSize(), param().base_inputs)) {
      last_joiner = r;
    }
  }
  EXPECT_EQ(authoritative, last_joiner);

  const auto params = model->named_parameters();
  for (const auto& p : params) expectSameOnEveryRank(p.value(), p.key());
  // Buffers end as the authoritative rank's only where they are synced with
  // the parameters (not on PyTorch 2.x without broadcast_buffers).
  if (distalgo::ddp::syncsBuffersWithParameters(param().options)) {
    for (const auto& b : model->named_buffers()) {
      expectSameOnEveryRank(b.value(), b.key());
    }
  }
  const double tolerance = param().tolerance;
  if (tolerance < 0) return;
  const auto expected = replay();
  const auto want = expected.model->named_parameters();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto& a = params[i].value();
    const auto& e = want[i].value();
    const bool close = tolerance == 0 ? at::allclose(a, e, 1e-5, 1e-6)
                                      : at::allclose(a, e, 0, tolerance);
    EXPECT_TRUE(close) << params[i].key() << ": largest difference "
                       << (a - e).abs().max().item<double>();
  }
  const auto buffers = model->buffers();
  const auto& want_buffers = expected.buffers[rank()];
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i].is_floating_point()) continue;
    EXPECT_TRUE(at::allclose(buffers[i], want_buffers[i], 1e-5, 1e-6))
        << "buffer " << i;
  }
}

distalgo::hooks::PowerSgdOptions powerSgdFrom(std::int64_t start) {
  return {.matrix_approximation_rank = 1,
          .start_iteration = start,
          .use_error_feedback = start > 1,
          .warm_start = start > 1};
}

std::function<CommHook(Group)> powerSgd(std::int64_t start,
                                        bool batched = false) {
  return [start, batched](const Group& pg) {
    auto state = std::make_shared<distalgo::hooks::PowerSgdState>(
        pg, powerSgdFrom(start));
    return batched ? distalgo::hooks::batchedPowerSgdHook(state)
                   : distalgo::hooks::powerSgdHook(state);
  };
}

// DDP options at a bucketed model's caps.
DdpOptions capsOf(const fixtures::BucketedModel& model) {
  return {.bucket_cap_mb = model.bucket_cap_mb,
          .first_bucket_cap_bytes = model.first_bucket_cap_bytes};
}

// Rounding of up to six steps' gradients to float16 (11 significant bits),
// bfloat16 (8) or 8-bit quantization: fp16 as in the hook suite; bf16 and
// quantization about three times the largest difference measured at world
// sizes 2 to 4 (6.8e-4).
constexpr double kFp16Tolerance = 1e-3;
constexpr double kBf16Tolerance = 2e-3;
constexpr double kQuantizationTolerance = 2e-3;

const std::vector<UnevenCase> kUnevenCases = {
    {.name = "mlp", .make = &fixtures::makeMlp},
    {.name = "mlp_reversed_offsets",
     .make = &fixtures::makeMlp,
     .reversed_offsets = true},
    {.name = "mlp_one_input_apart",
     .make = &fixtures::makeMlp,
     .base_inputs = 1},
    {.name = "batch_norm_net_reversed_offsets",
     .make = &fixtures::makeBatchNormNet,
     .reversed_offsets = true},
    {.name = "mlp_divide_by_training_ranks",
     .make = &fixtures::makeMlp,
     .divide_by_initial_world_size = false},
    {.name = "mlp_one_bucket_per_parameter",
     .make = &fixtures::makeMlp,
     .options = {.bucket_cap_mb = 1e-6, .first_bucket_cap_bytes = 1}},
    {.name = "mlp_gradient_as_bucket_view",
     .make = &fixtures::makeMlp,
     .options = {.gradient_as_bucket_view = true}},
    {.name = "convnet", .make = &fixtures::makeConvNet},
    {.name = "unused_parameter_net_find_unused",
     .make = &makeUnused,
     .options = {.find_unused_parameters = true}},
    {.name = "unused_parameter_net_divide_by_training_ranks",
     .make = &makeUnused,
     .options = {.find_unused_parameters = true},
     .divide_by_initial_world_size = false},
    {.name = "batch_norm_net", .make = &fixtures::makeBatchNormNet},
    {.name = "batch_norm_net_no_buffer_broadcast",
     .make = &fixtures::makeBatchNormNet,
     .options = {.broadcast_buffers = false}},
    // A hook divides by the initial world size itself.
    {.name = "allreduce_hook",
     .make = &fixtures::makeMlp,
     .hook =
         [](Group pg) {
           return distalgo::hooks::allreduceHook(std::move(pg));
         }},
    {.name = "fp16_compress_hook",
     .make = &fixtures::makeMlp,
     .hook =
         [](Group pg) {
           return distalgo::hooks::fp16CompressHook(std::move(pg));
         },
     .tolerance = kFp16Tolerance},
    {.name = "bf16_compress_hook",
     .make = &fixtures::makeMlp,
     .hook =
         [](Group pg) {
           return distalgo::hooks::bf16CompressHook(std::move(pg));
         },
     .tolerance = kBf16Tolerance},
    {.name = "quantization_per_tensor_hook",
     .make = &fixtures::makeMlp,
     .hook =
         [](Group pg) {
           return distalgo::hooks::quantizationPerTensorHook(std::move(pg));
         },
     .tolerance = kQuantizationTolerance},
    {.name = "quantization_per_channel_hook",
     .make = &fixtures::makeMlp,
     .hook =
         [](Group pg) {
           return distalgo::hooks::quantizationPerChannelHook(std::move(pg));
         },
     .tolerance = kQuantizationTolerance},
    {.name = "powersgd_before_start",
     .make = &fixtures::makeMlp,
     .hook = powerSgd(1000)},
    // Compressing from the second iteration on, with joined ranks sending
    // zeros through P and Q: the ranks must still end equal.
    {.name = "powersgd_compressing",
     .make = &fixtures::makeMlp,
     .hook = powerSgd(1),
     .tolerance = -1},
    // Several buckets (fixtures/bucketed_models.h): the joined ranks' zero
    // buckets go through the hook's chains of collectives in the training
    // ranks' order.
    {.name = "three_buckets",
     .make = &fixtures::makeMlp,
     .options = capsOf(fixtures::smallCapMlp())},
    {.name = "three_buckets_fp16_compress_hook",
     .make = &fixtures::makeMlp,
     .options = capsOf(fixtures::smallCapMlp()),
     .hook =
         [](Group pg) {
           return distalgo::hooks::fp16CompressHook(std::move(pg));
         },
     .tolerance = kFp16Tolerance},
    {.name = "three_buckets_powersgd_compressing",
     .make = &fixtures::makeMlp,
     .options = capsOf(fixtures::smallCapMlp()),
     .hook = powerSgd(1),
     .tolerance = -1},
    {.name = "three_buckets_batched_powersgd_compressing",
     .make = &fixtures::makeMlp,
     .options = capsOf(fixtures::smallCapMlp()),
     .hook = powerSgd(1, /*batched=*/true),
     .tolerance = -1},
    {.name = "deep_mlp_default_caps",
     .make = &fixtures::makeDeepReluMlp,
     .options = capsOf(fixtures::deepMlp()),
     .features = fixtures::deepMlp().inputs},
    {.name = "deep_mlp_powersgd_compressing",
     .make = &fixtures::makeDeepReluMlp,
     .options = capsOf(fixtures::deepMlp()),
     .hook = powerSgd(1),
     .tolerance = -1,
     .features = fixtures::deepMlp().inputs},
    {.name = "wide_convnet_default_caps",
     .make = &fixtures::makeWideConvNet,
     .options = capsOf(fixtures::wideConvNet()),
     .features = fixtures::wideConvNet().inputs},
};
RANKTEST_INSTANTIATE_P(JoinDdp, kUnevenCases);

}  // namespace
}  // namespace join_suite
