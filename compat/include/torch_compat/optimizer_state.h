#pragma once

// How libtorch's optimizers key their per-parameter state, and how their
// archives name parameters. Up to 1.13 the state map is keyed by the
// parameter's TensorImpl address printed in hex ("0x55d0..."); since 2.0 by
// the address itself (void*), and archives name it in decimal, which 2.x
// reads back with std::stoull. A hex name read by 2.x parses as 0 for every
// parameter (so all state lands on one): archives must carry decimal names,
// which 1.13 reads as well (it maps saved names to parameters by position).

#include <ATen/core/Tensor.h>
#include <torch/optim/optimizer.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

namespace torch_compat {

// The optimizer's state map, as Optimizer::state() returns it.
using OptimizerState = std::remove_cvref_t<
    decltype(std::declval<torch::optim::Optimizer&>().state())>;
// Its key type: std::string up to 1.13, void* since 2.0.
using StateKey = typename OptimizerState::key_type;

// The key of `parameter`'s entry in Optimizer::state().
template <class Key = StateKey>
Key stateKey(const at::Tensor& parameter) {
  void* impl = parameter.unsafeGetTensorImpl();
  if constexpr (std::is_same_v<Key, void*>) {
    return impl;
  } else {
    // c10::guts::to_string of 1.13, which streams the pointer.
    std::ostringstream out;
    out << impl;
    return out.str();
  }
}

// The name of `parameter` in an optimizer archive, on every version: its
// address in decimal, as 2.x writes it.
inline std::string archiveKey(const at::Tensor& parameter) {
  return std::to_string(
      reinterpret_cast<std::uintptr_t>(parameter.unsafeGetTensorImpl()));
}

}  // namespace torch_compat
