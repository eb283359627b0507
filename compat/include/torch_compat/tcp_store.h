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

// Options whose server can take over a socket its owner bound and listens
// on (2.x's masterListenFd; 1.13 binds its own).
template <class Options>
concept AdoptsListeningSocket = requires(Options options) {
  options.masterListenFd;
};

inline constexpr bool kServerAdoptsSocket =
    AdoptsListeningSocket<c10d::TCPStoreOptions>;

// Makes a store served with `options` serve on `listening_fd`, which it then
// owns. Only where kServerAdoptsSocket.
template <class Options = c10d::TCPStoreOptions>
void adoptListeningSocket(Options& options, int listening_fd) {
  if constexpr (AdoptsListeningSocket<Options>) {
    options.masterListenFd = listening_fd;
  }
}

}  // namespace torch_compat
