#pragma once

// A TCPStore served on a free loopback port, with clients of it: for tests
// of what ranks do through a launched job's store.

#include <chrono>
#include <cstddef>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <vector>

namespace harness_suite {

struct LoopbackStore {
  // `clients` connections besides the server's own; a wait gives up after
  // `timeout`.
  explicit LoopbackStore(
      std::size_t clients,
      std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    c10d::TCPStoreOptions options;
    options.port = 0;
    options.isServer = true;
    options.waitWorkers = false;
    options.timeout = timeout;
    server = c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
    options.port = server->getPort();
    options.isServer = false;
    for (std::size_t i = 0; i < clients; ++i) {
      this->clients.push_back(
          c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options));
    }
  }

  c10::intrusive_ptr<c10d::TCPStore> server;
  std::vector<c10::intrusive_ptr<c10d::TCPStore>> clients;
};

}  // namespace harness_suite
