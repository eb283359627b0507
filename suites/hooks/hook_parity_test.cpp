// The parameterised hook suite: every row of every hook table runs these
// bodies (the rows: hook_table.cpp and one file per hook family).

#include "hook_parity.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <torch/nn/functional/loss.h>

#include <stdexcept>
#include <vector>

#include "fixtures/compare.h"
#include "fixtures/rank_data.h"
#include "fixtures/training.h"

namespace {

using hookparity::Parity;

bool isPowerOfTwo(int n) { return (n & (n - 1)) == 0; }

// What a row's parity allows between its parameters and the expected ones.
fixtures::Tolerance toleranceOf(const Parity& parity, int world_size) {
  // Dividing by a power of two is exact, so where the division happens
  // cannot matter; by 3 it rounds, in the reducer and in a hook alike but at
  // different places.
  constexpr fixtures::Tolerance kRounding{.rtol = 1e-6, .atol = 1e-7};
  switch (parity.kind) {
    case Parity::Kind::kExact:
      return isPowerOfTwo(world_size) ? fixtures::kExact : kRounding;
    case Parity::Kind::kWithin:
    case Parity::Kind::kConverges:
      return {.atol = parity.tolerance};
    case Parity::Kind::kLocal:
      return kRounding;
  }
  throw std::invalid_argument("toleranceOf: unknown parity kind");
}

// `model` trained alone on this rank's data (no DDP) on `device`: what a
// hook that communicates nothing must equal. Copies on the CPU.
std::vector<at::Tensor> trainAlone(const fixtures::BucketedModel& model,
                                   int rank, int steps, double learning_rate,
                                   c10::Device device) {
  auto module = model.make(/*seed=*/1);
  module->to(device);
  fixtures::sgdSteps(module->parameters(), steps, learning_rate, [&](int step) {
    const auto b = fixtures::rankBatch(step, rank, hookparity::kRows,
                                       model.inputs, model.outputs);
    return torch::nn::functional::mse_loss(module->forward(b.input.to(device)),
                                           b.target.to(device));
  });
  std::vector<at::Tensor> parameters;
  for (const auto& p : fixtures::snapshot(*module))
    parameters.push_back(p.cpu());
  return parameters;
}

// Trains `model` with and without the row's hook on `device` and compares as
// the row says.
void expectParity(const hookparity::HookCase& row,
                  const fixtures::BucketedModel& model,
                  const hookparity::Group& pg, int rank, int world_size,
                  c10::Device device = c10::kCPU) {
  SCOPED_TRACE(model.name);
  const auto reference = hookparity::trainModel(model, pg, rank, row.steps,
                                                row.learning_rate, {}, device);
  const auto hooked = hookparity::trainModel(
      model, pg, rank, row.steps, row.learning_rate, row.make, device);
  const auto expected =
      row.parity.kind == Parity::Kind::kLocal
          ? trainAlone(model, rank, row.steps, row.learning_rate, device)
          : reference.parameters;
  fixtures::expectSameTensors(hooked.parameters, expected,
                              toleranceOf(row.parity, world_size));
  if (row.parity.kind == Parity::Kind::kConverges) {
    EXPECT_LT(hooked.losses.back(), hooked.losses.front())
        << model.name << ": the loss did not fall over " << row.steps
        << " steps";
  }
}

RANKTEST_P(CommHookParity, MatchesReferenceDdp) {
  expectParity(param(), fixtures::oneBucketMlp(), pg(), rank(), worldSize());
}

// The fixture MLP in three buckets: every hook's collectives for several
// buckets in flight at once, in the same order on every rank.
RANKTEST_P(CommHookParity, MatchesReferenceDdpInThreeBuckets) {
  expectParity(param(), fixtures::smallCapMlp(), pg(), rank(), worldSize());
}

RANKTEST_P(CommHookCuda, MatchesReferenceDdpOnTheGpu) {
  ASSERT_TRUE(device().is_cuda());
  expectParity(param(), fixtures::oneBucketMlp(), pg(), rank(), worldSize(),
               device());
}

RANKTEST_P(CommHookCuda, MatchesReferenceDdpInThreeBucketsOnTheGpu) {
  expectParity(param(), fixtures::smallCapMlp(), pg(), rank(), worldSize(),
               device());
}

RANKTEST_P(CommHookParity, SendsThePredictedBytes) {
  const auto& row = param();
  auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
  hookparity::trainMlp(counting, rank(), row.steps, row.learning_rate, {});
  auto reference = counting->allTraffic();
  const hookparity::TrafficContext context{
      fixtures::makeMlp(/*seed=*/1)->parameters(),
      worldSize(),
      row.steps,
      backend(),
      reference["allreduce"].bytes,
      rank()};
  // What DDP sends besides the gradients (the parameter broadcast of
  // construction) is the same with a hook.
  reference.erase("allreduce");
  counting->reset();
  hookparity::trainMlp(counting, rank(), row.steps, row.learning_rate,
                       row.make);
  const hookparity::Bytes predicted = row.traffic(context);
  for (const auto& [collective, traffic] : counting->allTraffic()) {
    const auto it = predicted.find(collective);
    const std::int64_t hook_bytes = traffic.bytes - reference[collective].bytes;
    EXPECT_EQ(hook_bytes, it == predicted.end() ? 0 : it->second)
        << collective << (it == predicted.end() ? " (not predicted)" : "");
  }
  for (const auto& [collective, bytes] : predicted) {
    EXPECT_EQ(counting->traffic(collective).bytes - reference[collective].bytes,
              bytes)
        << collective;
  }
}

}  // namespace
