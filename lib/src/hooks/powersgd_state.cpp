#include "distalgo/hooks/powersgd_state.h"

#include "internal/check.h"

namespace distalgo::hooks {
namespace {

// numpy's legacy randint(1e9) draws 32-bit words from MT19937, masks them to
// the smallest 2^k - 1 covering the range and rejects what falls beyond it.
constexpr std::uint32_t kSeedMask = 0x3FFFFFFF;
constexpr std::uint32_t kLargestSeed = 999'999'999;

}  // namespace

PowerSgdState::PowerSgdState(c10::intrusive_ptr<c10d::ProcessGroup> pg,
                             PowerSgdOptions options)
    : pg_(std::move(pg)), options_(options), rng_(options.random_seed) {
  // PyTorch accepts 0, and then zeroes every compressed gradient.
  DISTALGO_CHECK_ARG(options_.matrix_approximation_rank >= 1,
                     "PowerSgdState: matrix_approximation_rank must be at "
                     "least 1, got ",
                     options_.matrix_approximation_rank);
  // Both memories are keyed by bucket index, and DDP rebuilds its buckets
  // after the first iteration: state kept before then would not fit.
  // PyTorch's message, word for word.
  DISTALGO_CHECK_ARG(
      !(options_.use_error_feedback || options_.warm_start) ||
          options_.start_iteration > 1,
      "Expect `start_powerSGD_iter` > 1 if `use_error_feedback` or "
      "`warm_start` is enabled, because PowerSGD can only be applied after "
      "the first two iterations in DDP.");
}

std::int64_t PowerSgdState::iteration() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return iteration_;
}

bool PowerSgdState::compressing() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return iteration_ >= options_.start_iteration;
}

void PowerSgdState::maybeIncreaseIteration(bool is_last_bucket) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (is_last_bucket) ++iteration_;
}

CompressionStats PowerSgdState::compressionStats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  const double rate =
      numel_after_ > 0 ? static_cast<double>(numel_before_) / numel_after_ : 0;
  return {rate, numel_before_, numel_after_};
}

void PowerSgdState::addCompressionStats(std::int64_t numel_before,
                                        std::int64_t numel_after) {
  std::lock_guard<std::mutex> lock(mutex_);
  numel_before_ += numel_before;
  numel_after_ += numel_after;
}

std::uint32_t PowerSgdState::nextSeed() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::uint32_t value = 0;
  do {
    value = static_cast<std::uint32_t>(rng_()) & kSeedMask;
  } while (value > kLargestSeed);
  return value;
}

at::Tensor PowerSgdState::error(std::size_t bucket) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = errors_.find(bucket);
  return it == errors_.end() ? at::Tensor() : it->second;
}

void PowerSgdState::setError(std::size_t bucket, at::Tensor error) {
  std::lock_guard<std::mutex> lock(mutex_);
  errors_[bucket] = std::move(error);
}

std::pair<at::Tensor, at::Tensor> PowerSgdState::lowRankMemory(
    std::size_t bucket) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = low_rank_.find(bucket);
  return it == low_rank_.end() ? std::pair<at::Tensor, at::Tensor>()
                               : it->second;
}

void PowerSgdState::setLowRankMemory(std::size_t bucket, at::Tensor p,
                                     at::Tensor q) {
  std::lock_guard<std::mutex> lock(mutex_);
  low_rank_[bucket] = {std::move(p), std::move(q)};
}

void PowerSgdState::clearLowRankMemory() {
  std::lock_guard<std::mutex> lock(mutex_);
  low_rank_.clear();
}

}  // namespace distalgo::hooks
