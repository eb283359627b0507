// PowerSGD's pieces that need no process group: the seed sequence, the
// state's argument check and orthogonalization.

#include <ATen/ATen.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "distalgo/hooks/internal/orthogonalize.h"
#include "distalgo/hooks/powersgd_state.h"

namespace {

using distalgo::hooks::PowerSgdOptions;
using distalgo::hooks::PowerSgdState;
using distalgo::hooks::internal::orthogonalize;

// These tests never communicate.
const c10::intrusive_ptr<c10d::ProcessGroup> kNoGroup;

// The first draws of numpy.random.RandomState(seed).randint(1_000_000_000),
// printed by numpy 1.24.
TEST(CommHookPowerSgdRng, SeedsFollowNumpysRandomState) {
  PowerSgdState zero(kNoGroup, {.start_iteration = 2});
  for (std::uint32_t expected :
       {209652396u, 398764591u, 924231285u, 404868288u, 441365315u}) {
    EXPECT_EQ(zero.nextSeed(), expected);
  }
  PowerSgdState other(kNoGroup, {.start_iteration = 2, .random_seed = 12345});
  for (std::uint32_t expected : {771445218u, 601959909u, 285080861u}) {
    EXPECT_EQ(other.nextSeed(), expected);
  }
}

TEST(CommHookPowerSgdState, RejectsAnEarlyStartWithMemory) {
  for (const auto& [error_feedback, warm_start] :
       {std::pair{true, false}, {false, true}, {true, true}}) {
    const PowerSgdOptions options{.start_iteration = 1,
                                  .use_error_feedback = error_feedback,
                                  .warm_start = warm_start};
    EXPECT_THAT(
        [&] { PowerSgdState state(kNoGroup, options); },
        testing::ThrowsMessage<std::invalid_argument>(testing::HasSubstr(
            "Expect `start_powerSGD_iter` > 1 if `use_error_feedback` or "
            "`warm_start` is enabled, because PowerSGD can only be applied "
            "after the first two iterations in DDP.")));
  }
  // Without memory across iterations, compressing from the start is fine.
  EXPECT_NO_THROW(PowerSgdState(kNoGroup, {.start_iteration = 0,
                                           .use_error_feedback = false,
                                           .warm_start = false}));
}

TEST(CommHookPowerSgdState, StatisticsStartEmpty) {
  PowerSgdState state(kNoGroup);
  const auto stats = state.compressionStats();
  EXPECT_EQ(stats.rate, 0);
  EXPECT_EQ(stats.numel_before, 0);
  EXPECT_EQ(stats.numel_after, 0);
  EXPECT_EQ(state.iteration(), 0);
  EXPECT_FALSE(state.compressing());
}

void expectOrthonormalColumns(const at::Tensor& batch) {
  const at::Tensor gram = at::bmm(batch.transpose(1, 2), batch);
  const at::Tensor identity =
      at::eye(batch.size(2), batch.options()).expand_as(gram);
  EXPECT_TRUE(at::allclose(gram, identity, 0, 1e-5)) << gram;
}

TEST(CommHookPowerSgdOrthogonalize, GramSchmidtUpToRankTwo) {
  at::manual_seed(3);
  const at::Tensor batch = at::randn({2, 7, 2});
  const at::Tensor original = batch.clone();
  orthogonalize(batch, 0);
  expectOrthonormalColumns(batch);
  // The first column keeps its direction.
  const at::Tensor first = original.narrow(2, 0, 1);
  EXPECT_TRUE(at::allclose(batch.narrow(2, 0, 1),
                           first / at::linalg_vector_norm(first, 2, {1}, true),
                           0, 1e-6));
}

TEST(CommHookPowerSgdOrthogonalize, QrAboveRankTwo) {
  at::manual_seed(4);
  const at::Tensor batch = at::randn({3, 9, 4});
  const at::Tensor original = batch.clone();
  orthogonalize(batch, 0);
  expectOrthonormalColumns(batch);
  const auto [q, r] = at::linalg_qr(original, "reduced");
  EXPECT_TRUE(at::equal(batch, q));
}

TEST(CommHookPowerSgdOrthogonalize, EpsilonKeepsAZeroColumnFinite) {
  at::Tensor batch = at::ones({1, 4, 2});
  batch.narrow(2, 0, 1).zero_();
  at::Tensor unprotected = batch.clone();
  orthogonalize(unprotected, 0);
  EXPECT_TRUE(unprotected.isnan().any().item<bool>())
      << "PyTorch divides a zero column by its zero norm";
  orthogonalize(batch, 1e-8);
  EXPECT_TRUE(batch.isfinite().all().item<bool>()) << batch;
  EXPECT_TRUE(
      at::allclose(batch.narrow(2, 1, 1), at::full({1, 4, 1}, 0.5), 0, 1e-6));
}

TEST(CommHookPowerSgdOrthogonalize, RejectsMoreColumnsThanRows) {
  EXPECT_THROW(orthogonalize(at::ones({1, 2, 3}), 0), c10::Error);
  EXPECT_THROW(orthogonalize(at::ones({2, 3}), 0), c10::Error);
}

}  // namespace
