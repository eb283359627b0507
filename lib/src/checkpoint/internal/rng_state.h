#pragma once

// The default random generators' states at one moment, and a scope that
// replays them: PyTorch's preserve_rng_state around a recomputation.

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <utility>
#include <vector>

namespace distalgo::checkpoint::internal {

// The CPU generator's state and that of each CUDA device among `devices`.
class RngState {
 public:
  static RngState capture(const std::vector<c10::Device>& devices);
  void restore() const;

 private:
  std::vector<std::pair<at::Generator, at::Tensor>> states_;
};

// While alive, the generators start from `saved`; their states from before
// come back at the end, so the recomputation draws nothing from the caller's
// stream.
class ReplayedRng {
 public:
  ReplayedRng(const RngState& saved, const std::vector<c10::Device>& devices);
  ~ReplayedRng();
  ReplayedRng(const ReplayedRng&) = delete;
  ReplayedRng& operator=(const ReplayedRng&) = delete;

 private:
  RngState previous_;
};

}  // namespace distalgo::checkpoint::internal
