#pragma once

// Debian's libtorch-dev ships c10d/reducer.hpp but not the distributed
// autograd headers it includes. The reducer needs only these two names from
// here (it checks that its GradCallback matches, and keeps a ContextPtr it
// never dereferences without distributed autograd), so this declaration is
// enough for the real c10d::Reducer to build and link.

#include <ATen/core/Tensor.h>

#include <functional>
#include <memory>

namespace torch::distributed::autograd {

class DistAutogradContext {
 public:
  using GradCallback = std::function<bool(at::Tensor&)>;
};

using ContextPtr = std::shared_ptr<DistAutogradContext>;

}  // namespace torch::distributed::autograd
