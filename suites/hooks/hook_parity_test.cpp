// The parameterised hook suite: every row of every hook table runs these
// bodies (the rows: hook_table.cpp and one file per hook family).

#include "hook_parity.h"

#include <ATen/ATen.h>
#include <gmock/gmock.h>

#include <string>
#include <vector>

namespace {

using hookparity::Parity;

bool isPowerOfTwo(int n) { return (n & (n - 1)) == 0; }

double largestDifference(const at::Tensor& a, const at::Tensor& b) {
  return (a - b).abs().max().item<double>();
}

// Trains `model` with and without the row's hook and compares as the row
// says.
void expectParity(const hookparity::HookCase& row,
                  const fixtures::BucketedModel& model,
                  const hookparity::Group& pg, int rank, int world_size) {
  const auto reference =
      hookparity::trainModel(model, pg, rank, row.steps, row.learning_rate, {});
  const auto hooked = hookparity::trainModel(model, pg, rank, row.steps,
                                             row.learning_rate, row.make);
  const auto& expected = row.parity.kind == Parity::Kind::kLocal
                             ? hookparity::trainModelAlone(
                                   model, rank, row.steps, row.learning_rate)
                                   .parameters
                             : reference.parameters;
  ASSERT_EQ(hooked.parameters.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const at::Tensor& actual = hooked.parameters[i];
    const std::string where =
        model.name + ", parameter " + std::to_string(i) +
        ", largest difference " +
        std::to_string(largestDifference(actual, expected[i]));
    switch (row.parity.kind) {
      case Parity::Kind::kExact:
        // Dividing by a power of two is exact, so where the division happens
        // cannot matter; by 3 it rounds, in the reducer and in a hook alike
        // but at different places.
        if (isPowerOfTwo(world_size)) {
          EXPECT_TRUE(at::equal(actual, expected[i])) << where;
        } else {
          EXPECT_TRUE(at::allclose(actual, expected[i], 1e-6, 1e-7)) << where;
        }
        break;
      case Parity::Kind::kWithin:
      case Parity::Kind::kConverges:
        EXPECT_TRUE(at::allclose(actual, expected[i], 0, row.parity.tolerance))
            << where;
        break;
      case Parity::Kind::kLocal:
        EXPECT_TRUE(at::allclose(actual, expected[i], 1e-6, 1e-7)) << where;
        break;
    }
  }
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

RANKTEST_P(CommHookParity, SendsThePredictedBytes) {
  const auto& row = param();
  auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(pg());
  hookparity::trainMlp(counting, rank(), row.steps, row.learning_rate, {});
  auto reference = counting->allTraffic();
  const hookparity::TrafficContext context{hookparity::mlpParameters(),
                                           worldSize(), row.steps, backend(),
                                           reference["allreduce"].bytes};
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
