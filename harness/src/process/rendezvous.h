#pragma once

// Where the ranks of one test (or one pool of reused ranks) meet. The parent
// owns it; nothing of it outlives the parent: the FileStore's file is unlinked
// at once and reached through an inherited descriptor, and the TCPStore
// listens on a kernel-chosen loopback port only while the parent holds it.

#include <chrono>
#include <cstdint>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "ranktest/test_options.h"

namespace ranktest::internal {

// A socket listening on a kernel-chosen port of 127.0.0.1 (close-on-exec);
// sets `port`. Throws `ranktest: cannot open the TCPStore's port: ...`.
int listenOnLoopback(std::uint16_t& port);

class Rendezvous {
 public:
  explicit Rendezvous(StoreKind kind);
  ~Rendezvous();
  Rendezvous(const Rendezvous&) = delete;
  Rendezvous& operator=(const Rendezvous&) = delete;

  // The RankLaunch::store value for ranks.
  std::string address() const;
  // The descriptor ranks inherit as kStoreFileFd, or -1.
  int fileFd() const { return file_fd_; }
  // Starts the TCPStore's server; called once the ranks are forked. Until
  // then the port only listens, and ranks that connect wait in its backlog:
  // a child of fork inherits every lock another thread holds, and a rank
  // forked while the server thread answered its peers once hung for the
  // whole deadline in TCPStore's client constructor. Where libtorch cannot
  // take over a socket (1.13) the server runs from the constructor on.
  void serve();

 private:
  int file_fd_ = -1;
  int listen_fd_ = -1;
  c10::intrusive_ptr<c10d::Store> tcp_server_;
  std::uint16_t port_ = 0;
};

// In a rank: connects to the store at `address` (see RankLaunch::store).
c10::intrusive_ptr<c10d::Store> connectStore(const std::string& address,
                                             int world_size,
                                             std::chrono::milliseconds timeout);

}  // namespace ranktest::internal
