// A loopback address is named without DNS (harness/src/loopback_names.cpp):
// with a DNS server that never answers, a TCPStore client on loopback
// connects at once instead of waiting out the resolver's timeout per
// connect (5 s stalls at 8 ranks before).

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netdb.h>
#include <resolv.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "loopback_store.h"

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kSkip = 77;
constexpr int kSlow = 2;
constexpr int kWrongName = 3;
// What the resolver would wait for the silent server; far above a connect.
constexpr char kResolvConf[] =
    "nameserver 127.0.0.1\noptions timeout:4 attempts:1\n";

// In a private mount namespace: /etc/resolv.conf names a DNS server on
// 127.0.0.1:53 that this process binds and never answers. Returns a code
// for the parent (0 when the resolver is silenced, kSkip when it cannot be).
int silenceTheResolver(std::string& why) {
  const int dns = ::socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_port = htons(53);
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (dns < 0 ||
      ::bind(dns, reinterpret_cast<sockaddr*>(&at), sizeof(at)) != 0) {
    why = "cannot bind 127.0.0.1:53 (root, and a free port, are needed)";
    return kSkip;
  }
  if (::unshare(CLONE_NEWNS) != 0 ||
      ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    why = "no private mount namespace here (root is needed)";
    return kSkip;
  }
  char path[] = "/tmp/ranktest-resolv.XXXXXX";
  const int fd = ::mkstemp(path);
  if (fd < 0) return kSkip;
  const ssize_t written = ::write(fd, kResolvConf, sizeof(kResolvConf) - 1);
  ::close(fd);
  const bool bound = written > 0 && ::mount(path, "/etc/resolv.conf", nullptr,
                                            MS_BIND, nullptr) == 0;
  ::unlink(path);
  if (!bound) {
    why = "cannot bind-mount over /etc/resolv.conf";
    return kSkip;
  }
  ::res_init();
  return 0;
}

// In a child, so that the mount namespace and the resolver's state go with
// it: the outcome as an exit code, `why` in the skip's case on stderr.
int childExitCode(int (*body)()) {
  const pid_t child = ::fork();
  if (child == 0) {
    std::string why;
    const int silenced = silenceTheResolver(why);
    if (silenced != 0) {
      std::fprintf(stderr, "%s\n", why.c_str());
      ::_exit(silenced);
    }
    ::_exit(body());
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int nameOfMappedLoopback() {
  sockaddr_in6 address{};
  address.sin6_family = AF_INET6;
  address.sin6_port = htons(80);
  ::inet_pton(AF_INET6, "::ffff:127.0.0.1", &address.sin6_addr);
  char host[NI_MAXHOST] = {};
  char service[NI_MAXSERV] = {};
  const auto start = Clock::now();
  const int failed = ::getnameinfo(reinterpret_cast<sockaddr*>(&address),
                                   sizeof(address), host, sizeof(host), service,
                                   sizeof(service), NI_NUMERICSERV);
  if (Clock::now() - start > std::chrono::seconds(1)) return kSlow;
  return failed == 0 && std::string(host) == "::ffff:127.0.0.1" ? 0
                                                                : kWrongName;
}

int tenLoopbackStoreConnects() {
  const auto start = Clock::now();
  const harness_suite::LoopbackStore store(10);
  return Clock::now() - start > std::chrono::seconds(2) ? kSlow : 0;
}

void expectFast(int code) {
  if (code == kSkip)
    GTEST_SKIP() << "see stderr: the resolver cannot be silenced";
  EXPECT_NE(code, kSlow) << "waited for the silent DNS server";
  EXPECT_EQ(code, 0);
}

TEST(HarnessLoopbackNames, MappedLoopbackIsNamedWithoutDns) {
  expectFast(childExitCode(&nameOfMappedLoopback));
}

TEST(HarnessLoopbackNames, TcpStoreOnLoopbackConnectsWithoutDns) {
  expectFast(childExitCode(&tenLoopbackStoreConnects));
}

}  // namespace
