#pragma once

// A CommHook as the reducer's c10d::CommHookInterface.

#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/comm.hpp>

#include "distalgo/ddp/comm_hook.h"

namespace distalgo::ddp::internal {

// Adapts a CommHook to the reducer's interface; errors name the hook and
// `rank`. (c10d's CppCommHookInterface is not usable: Debian's libtorch does
// not export the result parser it needs.)
std::unique_ptr<c10d::CommHookInterface> adaptCommHook(CommHook hook,
                                                       std::string name,
                                                       int rank);

}  // namespace distalgo::ddp::internal
