// The hook kit's parity bodies: every row of every hook table runs them
// (ranktest's own rows: suites/hooks/hook_table.cpp and one file per hook
// family; a user's rows: their project's table).

#include <ATen/ATen.h>
#include <gtest/gtest.h>
#include <torch/nn/functional/loss.h>

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <vector>

#include "fixtures/compare.h"
#include "fixtures/rank_data.h"
#include "fixtures/training.h"
#include "hookparity/hook_parity.h"

namespace {

using hookparity::Parity;

bool isPowerOfTwo(int n) { return (n & (n - 1)) == 0; }

// Float32 rounding of the same sums divided at different places.
constexpr fixtures::Tolerance kRounding{.rtol = 1e-6, .atol = 1e-7};

// What a row's parity allows between its parameters and the expected ones.
fixtures::Tolerance toleranceOf(const Parity& parity, int world_size) {
  // Dividing by a power of two is exact, so where the division happens
  // cannot matter; by 3 it rounds, in the reducer and in a hook alike but at
  // different places.
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

// `model` trained in one process (no DDP) on `device`, step i on
// batch(i): the ground truth. Copies on the CPU.
std::vector<at::Tensor> trainInOneProcess(
    const fixtures::BucketedModel& model, int steps, double learning_rate,
    c10::Device device, const std::function<fixtures::Batch(int)>& batch) {
  auto module = model.make(/*seed=*/1);
  module->to(device);
  fixtures::sgdSteps(module->parameters(), steps, learning_rate, [&](int step) {
    const fixtures::Batch b = batch(step);
    return torch::nn::functional::mse_loss(module->forward(b.input.to(device)),
                                           b.target.to(device));
  });
  std::vector<at::Tensor> parameters;
  for (const auto& p : fixtures::snapshot(*module))
    parameters.push_back(p.cpu());
  return parameters;
}

// `model` trained alone on this rank's data: what a hook that communicates
// nothing must equal.
std::vector<at::Tensor> trainAlone(const fixtures::BucketedModel& model,
                                   int rank, int steps, double learning_rate,
                                   c10::Device device) {
  return trainInOneProcess(model, steps, learning_rate, device, [&](int step) {
    return fixtures::rankBatch(step, rank, hookparity::kRows, model.inputs,
                               model.outputs);
  });
}

// `model` trained on every rank's data at once (the mean over all rows is
// the mean of the ranks' means: they have equally many rows).
std::vector<at::Tensor> trainOnEveryRanksData(
    const fixtures::BucketedModel& model, int world_size, int steps,
    double learning_rate) {
  return trainInOneProcess(
      model, steps, learning_rate, c10::kCPU, [&](int step) {
        return fixtures::globalBatch(step, world_size, hookparity::kRows,
                                     model.inputs, model.outputs);
      });
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
  const auto hooked =
      hookparity::trainModel(model, pg, rank, row.steps, row.learning_rate,
                             row.make, device, row.name);
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
// Reference DDP itself differs from the ground truth by rounding: it
// divides each rank's loss by its own rows and the sum by the world size.
RANKTEST_P(CommHookParity, MatchesSingleProcessGroundTruth,
           ranktest::worldSizes({2, 3})) {
  const auto& row = param();
  const auto model = fixtures::oneBucketMlp();
  const auto hooked =
      hookparity::trainModel(model, pg(), rank(), row.steps, row.learning_rate,
                             row.make, c10::kCPU, row.name);
  const bool local = row.parity.kind == Parity::Kind::kLocal;
  const auto expected =
      local ? trainAlone(model, rank(), row.steps, row.learning_rate, c10::kCPU)
            : trainOnEveryRanksData(model, worldSize(), row.steps,
                                    row.learning_rate);
  fixtures::Tolerance tolerance = toleranceOf(row.parity, worldSize());
  tolerance.rtol = std::max(tolerance.rtol, kRounding.rtol);
  tolerance.atol = std::max(tolerance.atol, kRounding.atol);
  fixtures::expectSameTensors(hooked.parameters, expected, tolerance);
}

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
  hookparity::trainMlp(counting, rank(), row.steps, row.learning_rate, row.make,
                       row.name);
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

namespace hookparity::internal {
bool linkParityBodies() { return true; }
}  // namespace hookparity::internal
