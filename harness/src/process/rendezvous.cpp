#include "process/rendezvous.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <utility>

#include "torch_compat/tcp_store.h"
#include "wire/check.h"
#include "wire/host_port.h"
#include "wire/rank_launch.h"

namespace ranktest::internal {
namespace {

int createUnlinkedFile() {
  const char* tmp = std::getenv("TMPDIR");
  std::string path =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/ranktest-store.XXXXXX";
  int fd = ::mkostemp(path.data(), O_CLOEXEC);
  if (fd < 0) {
    RANKTEST_FAIL("ranktest: cannot create the FileStore file " + path + ": " +
                  std::strerror(errno));
  }
  ::unlink(path.c_str());
  return fd;
}

[[noreturn]] void throwSocketError(const char* step, int fd) {
  const std::string text = std::strerror(errno);
  if (fd >= 0) ::close(fd);
  RANKTEST_FAIL(std::string("ranktest: cannot open the TCPStore's "
                            "port: ") +
                step + " failed: " + text);
}

c10::intrusive_ptr<c10d::TCPStore> startServer(std::uint16_t port,
                                               int listening_fd) {
  c10d::TCPStoreOptions options;
  options.port = port;
  options.isServer = true;
  options.waitWorkers = false;
  torch_compat::useClassicServer(options);
  if (listening_fd >= 0) {
    torch_compat::adoptListeningSocket(options, listening_fd);
  }
  return c10::make_intrusive<c10d::TCPStore>("127.0.0.1", options);
}

}  // namespace

int listenOnLoopback(std::uint16_t& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throwSocketError("socket", -1);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), length) != 0) {
    throwSocketError("bind", fd);
  }
  if (::listen(fd, SOMAXCONN) != 0) throwSocketError("listen", fd);
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throwSocketError("getsockname", fd);
  }
  port = ntohs(address.sin_port);
  return fd;
}

Rendezvous::Rendezvous(StoreKind kind) {
  if (kind == StoreKind::kFile) {
    file_fd_ = createUnlinkedFile();
    return;
  }
  if constexpr (torch_compat::kServerAdoptsSocket) {
    listen_fd_ = listenOnLoopback(port_);
  } else {
    auto server = startServer(0, -1);
    port_ = server->getPort();
    tcp_server_ = server;
  }
}

Rendezvous::~Rendezvous() {
  if (file_fd_ >= 0) ::close(file_fd_);
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

void Rendezvous::serve() {
  if (listen_fd_ < 0) return;
  // The server takes the socket over.
  const int fd = std::exchange(listen_fd_, -1);
  tcp_server_ = startServer(port_, fd);
}

std::string Rendezvous::address() const {
  return file_fd_ >= 0 ? std::string("file") : "tcp:" + std::to_string(port_);
}

c10::intrusive_ptr<c10d::Store> connectStore(
    const std::string& address, int world_size,
    std::chrono::milliseconds timeout) {
  c10::intrusive_ptr<c10d::Store> store;
  if (address == "file") {
    // The file has no name; /proc/self/fd reopens the inherited descriptor.
    store = c10::make_intrusive<c10d::FileStore>(
        "/proc/self/fd/" + std::to_string(kStoreFileFd), world_size);
  } else if (address.rfind("tcp:", 0) == 0) {
    // tcp:<port> or tcp:<host>:<port> (host_port.h)
    const std::string rest = address.substr(4);
    const HostPort at = splitHostPort(
        rest.find(':') == std::string::npos ? "127.0.0.1:" + rest : rest);
    const std::string& host = at.host;
    c10d::TCPStoreOptions options;
    options.port = static_cast<std::uint16_t>(at.port);
    options.isServer = false;
    options.timeout = timeout;
    // Only a server waits for its workers. A rank forked from a launched
    // rank (whose heartbeat thread uses the store) must not either:
    // libtorch 2.x's waitForWorkers creates a wait counter under a
    // process-wide mutex that the fork may have copied locked (seen: a rank
    // of a torchrun job hung there for the whole deadline).
    options.waitWorkers = false;
    store = c10::make_intrusive<c10d::TCPStore>(host, options);
  } else {
    RANKTEST_FAIL_ARG("ranktest: unknown store address '" + address + "'");
  }
  store->setTimeout(timeout);
  return store;
}

}  // namespace ranktest::internal
