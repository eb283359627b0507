#include "hooks/internal/forked_cpu_rng.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Generator.h>

#include <mutex>

namespace distalgo::hooks::internal {

// Unlike torch.manual_seed, the CUDA generators are left alone: PowerSGD
// draws on the CPU only, and reseeding them was a side effect.
ForkedCpuRng::ForkedCpuRng(std::uint64_t seed) {
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  saved_state_ = generator.get_state();
  generator.set_current_seed(seed);
}

ForkedCpuRng::~ForkedCpuRng() {
  at::Generator generator = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(generator.mutex());
  generator.set_state(saved_state_);
}

}  // namespace distalgo::hooks::internal
