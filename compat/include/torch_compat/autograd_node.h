#pragma once

// The pointer autograd holds its graph's nodes by: std::shared_ptr up to
// 2.13, c10::intrusive_ptr once Node derives from intrusive_ptr_target.

#include <torch/csrc/autograd/function.h>

#include <memory>
#include <type_traits>
#include <utility>

namespace torch_compat {

// A new node of type `T`, held as autograd holds nodes.
template <class T, class... Args>
auto makeNode(Args&&... args) {
  if constexpr (std::is_base_of_v<c10::intrusive_ptr_target, T>) {
    return c10::make_intrusive<T>(std::forward<Args>(args)...);
  } else {
    return std::make_shared<T>(std::forward<Args>(args)...);
  }
}

}  // namespace torch_compat
