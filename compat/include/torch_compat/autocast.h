#pragma once

// This thread's autocast state (CPU and CUDA, and the cast cache) as one
// value. 2.x sets it per device type (is_autocast_enabled(kCPU)); 1.13 has a
// function per device (is_cpu_enabled). Told apart by the version: no trait
// can test for a namespace's function that may not be declared.

#include <ATen/autocast_mode.h>
#include <c10/core/ScalarType.h>

#include "torch_compat/version.h"

namespace torch_compat {

struct AutocastState {
  bool cpu_enabled = false;
  at::ScalarType cpu_dtype = at::kBFloat16;
  bool cuda_enabled = false;
  at::ScalarType cuda_dtype = at::kHalf;
  bool cache_enabled = true;
};

// The calling thread's autocast state.
inline AutocastState autocastState() {
#if TORCH_VERSION_MAJOR >= 2
  using at::autocast::get_autocast_dtype;
  using at::autocast::is_autocast_enabled;
  return {is_autocast_enabled(at::kCPU), get_autocast_dtype(at::kCPU),
          is_autocast_enabled(at::kCUDA), get_autocast_dtype(at::kCUDA),
          at::autocast::is_autocast_cache_enabled()};
#else
  return {at::autocast::is_cpu_enabled(),
          at::autocast::get_autocast_cpu_dtype(), at::autocast::is_enabled(),
          at::autocast::get_autocast_gpu_dtype(),
          at::autocast::is_autocast_cache_enabled()};
#endif
}

// Sets the calling thread's autocast state.
inline void setAutocastState(const AutocastState& state) {
#if TORCH_VERSION_MAJOR >= 2
  at::autocast::set_autocast_enabled(at::kCPU, state.cpu_enabled);
  at::autocast::set_autocast_dtype(at::kCPU, state.cpu_dtype);
  at::autocast::set_autocast_enabled(at::kCUDA, state.cuda_enabled);
  at::autocast::set_autocast_dtype(at::kCUDA, state.cuda_dtype);
#else
  at::autocast::set_cpu_enabled(state.cpu_enabled);
  at::autocast::set_autocast_cpu_dtype(state.cpu_dtype);
  at::autocast::set_enabled(state.cuda_enabled);
  at::autocast::set_autocast_gpu_dtype(state.cuda_dtype);
#endif
  at::autocast::set_autocast_cache_enabled(state.cache_enabled);
}

// Runs its scope under `state`, then restores the state it found. Nested as
// torch.autocast nests: leaving the outermost scope clears the cast cache,
// whose copies of weights would go stale once an optimizer steps them.
class AutocastStateGuard {
 public:
  explicit AutocastStateGuard(const AutocastState& state)
      : previous_(autocastState()) {
    setAutocastState(state);
    at::autocast::increment_nesting();
  }
  ~AutocastStateGuard() {
    if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    setAutocastState(previous_);
  }
  AutocastStateGuard(const AutocastStateGuard&) = delete;
  AutocastStateGuard& operator=(const AutocastStateGuard&) = delete;

 private:
  AutocastState previous_;
};

}  // namespace torch_compat
