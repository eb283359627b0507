#pragma once

// TCPStore's server: libtorch 2.x serves with libuv by default, 1.13 with a
// thread of its own (the classic backend, still in 2.x behind useLibUV).

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

namespace torch_compat {

// Makes a store served with `options` use the classic server thread. The
// harness's servers live in processes that go on forking ranks; under the
// libuv server, 2.11 left every rank of a test once waiting for keys the
// server held (Gloo's connect, 60 s, under parallel ctest), which the
// classic server, used with fork since 1.13, has not done.
template <class Options = c10d::TCPStoreOptions>
void useClassicServer(Options& options) {
  if constexpr (requires { options.useLibUV; }) options.useLibUV = false;
}

}  // namespace torch_compat
