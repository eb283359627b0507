#pragma once

// The state PowerSGD keeps across iterations (PyTorch's PowerSGDState): its
// options, the iteration counter, per-bucket memories (error feedback and the
// low-rank factors P and Q) and compression statistics. One state serves one
// DDP model; share it with the hook to read the counter and the statistics.

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <utility>

namespace distalgo::hooks {

// PowerSGD's options, with PyTorch's defaults.
struct PowerSgdOptions {
  // Rank of the approximation (capped per matrix at its smaller side).
  int matrix_approximation_rank = 1;
  // Iterations of plain allreduce before compression starts
  // (start_powerSGD_iter); DDP rebuilds its buckets after the first.
  std::int64_t start_iteration = 1000;
  // A matrix is compressed only when this many times smaller compressed.
  double min_compression_rate = 2;
  // Add what the previous compression lost to the next gradient.
  bool use_error_feedback = true;
  // Start each iteration from the previous iteration's Q.
  bool warm_start = true;
  // Added to the column norms when orthogonalizing; nonzero avoids NaN for a
  // zero column.
  double orthogonalization_epsilon = 0;
  // Seeds the draws of Q (numpy's RandomState(random_seed) in PyTorch).
  std::uint32_t random_seed = 0;
  // Compress all matrices of one shape in a single batched product.
  bool batch_tensors_with_same_shape = false;
};

// Elements sent so far: `rate` is before / after (0 before any compression).
struct CompressionStats {
  double rate = 0;
  std::int64_t numel_before = 0;
  std::int64_t numel_after = 0;
};

// Thread-safe: the hooks update it from communication callbacks.
class PowerSgdState {
 public:
  // Throws std::invalid_argument, as PyTorch raises ValueError, when error
  // feedback or warm start is on and options.start_iteration <= 1.
  explicit PowerSgdState(c10::intrusive_ptr<c10d::ProcessGroup> pg,
                         PowerSgdOptions options = {});

  const c10::intrusive_ptr<c10d::ProcessGroup>& processGroup() const {
    return pg_;
  }
  const PowerSgdOptions& options() const { return options_; }

  // Completed iterations (counted at the last bucket of each).
  std::int64_t iteration() const;
  // Whether the current iteration compresses.
  bool compressing() const;
  // Counts an iteration when `is_last_bucket` (maybe_increase_iter).
  void maybeIncreaseIteration(bool is_last_bucket);

  CompressionStats compressionStats() const;
  void addCompressionStats(std::int64_t numel_before, std::int64_t numel_after);

  // The next seed for drawing Q: numpy's RandomState(seed).randint(1e9).
  std::uint32_t nextSeed();

  // The bucket's error feedback memory; undefined until set.
  at::Tensor error(std::size_t bucket) const;
  void setError(std::size_t bucket, at::Tensor error);
  // The bucket's flat P and Q memories; both undefined until set.
  std::pair<at::Tensor, at::Tensor> lowRankMemory(std::size_t bucket) const;
  void setLowRankMemory(std::size_t bucket, at::Tensor p, at::Tensor q);
  // Forgets every bucket's P and Q (done each iteration without warm start).
  void clearLowRankMemory();

 private:
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  PowerSgdOptions options_;
  mutable std::mutex mutex_;
  std::mt19937 rng_;
  std::int64_t iteration_ = 0;
  std::int64_t numel_before_ = 0;
  std::int64_t numel_after_ = 0;
  std::map<std::size_t, at::Tensor> errors_;
  std::map<std::size_t, std::pair<at::Tensor, at::Tensor>> low_rank_;
};

}  // namespace distalgo::hooks
