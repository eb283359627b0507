#pragma once

// torch.random.fork_rng(devices=[]) followed by torch.manual_seed(seed), as a
// scope: draws from the default CPU generator inside it are reproducible, and
// the generator's state is put back when it ends.

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace distalgo::hooks::internal {

class ForkedCpuRng {
 public:
  explicit ForkedCpuRng(std::uint64_t seed);
  ~ForkedCpuRng();
  ForkedCpuRng(const ForkedCpuRng&) = delete;
  ForkedCpuRng& operator=(const ForkedCpuRng&) = delete;

 private:
  at::Tensor saved_state_;
};

}  // namespace distalgo::hooks::internal
