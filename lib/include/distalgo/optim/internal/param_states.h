#pragma once

// Per-parameter optimizer state, keyed by the parameter's TensorImpl as
// libtorch's optimizers key theirs.

#include <ATen/core/Tensor.h>

#include <mutex>
#include <unordered_map>
#include <utility>

namespace distalgo::optim::internal {

template <typename State>
class ParamStates {
 public:
  // The state of `param` (default-constructed on first use) and whether
  // this call created it. The reference stays valid while this object
  // lives. Safe to call from several threads at once: hooks step buckets
  // on the backend's threads.
  std::pair<State&, bool> get(const at::Tensor& param) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, created] = entries_.try_emplace(param.unsafeGetTensorImpl());
    // Holding the parameter keeps its address from being reused as a key.
    if (created) it->second.param = param;
    return {it->second.state, created};
  }

 private:
  struct Entry {
    at::Tensor param;
    State state;
  };
  std::mutex mutex_;
  std::unordered_map<const c10::TensorImpl*, Entry> entries_;
};

}  // namespace distalgo::optim::internal
