#include "job/local_address.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "wire/check.h"

namespace ranktest::internal {

// The numeric text of an IPv4 or IPv6 socket address, a link-local IPv6
// one with its interface ("fe80::1%eth0": Gloo binds it); "" for another
// kind.
std::string numericHost(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = {};
  const void* bytes = nullptr;
  std::uint32_t scope = 0;
  if (address->sa_family == AF_INET) {
    bytes = &reinterpret_cast<const sockaddr_in*>(address)->sin_addr;
  } else if (address->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
    bytes = &in6->sin6_addr;
    scope = in6->sin6_scope_id;
  } else {
    return "";
  }
  if (::inet_ntop(address->sa_family, bytes, text, sizeof(text)) == nullptr) {
    return "";
  }
  char interface[IF_NAMESIZE] = {};
  if (scope != 0 && ::if_indextoname(scope, interface) != nullptr) {
    return std::string(text) + "%" + interface;
  }
  return text;
}

// The address of this host's interface toward `host`: the one its peers
// reach it at. IPv4 where `host` has an IPv4 address that routes, as every
// rank then decides alike; else IPv6. A UDP connect sends nothing; it only
// picks the route. Where none routes, no peer of this rank's could be
// reached either: a loopback address in its place would only move the
// failure to a timeout that names something else.
std::string localAddressToward(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints,
                    &found) != 0 ||
      found == nullptr) {
    RANKTEST_FAIL("ranktest: cannot resolve MASTER_ADDR '" + host + "'");
  }
  std::string address;
  std::string tried;  // each address, with why it does not route
  for (const int family : {AF_INET, AF_INET6}) {
    for (const addrinfo* a = found; a != nullptr && address.empty();
         a = a->ai_next) {
      if (a->ai_family != family) continue;
      const std::string numeric = numericHost(a->ai_addr);
      const int fd = ::socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      sockaddr_storage local{};
      socklen_t size = sizeof(local);
      if (fd < 0 || ::connect(fd, a->ai_addr, a->ai_addrlen) != 0 ||
          ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &size) != 0) {
        const int error = errno;
        tried +=
            (tried.empty() ? "" : ", ") + numeric + ": " + std::strerror(error);
      } else {
        address = numericHost(reinterpret_cast<const sockaddr*>(&local));
      }
      if (fd >= 0) ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (!address.empty()) return address;
  RANKTEST_FAIL(
      "ranktest: no route from this host to MASTER_ADDR '" + host + "' (" +
      tried +
      "); MASTER_ADDR must be an address of rank 0's host that every host "
      "reaches");
}

// Whether `host` (MASTER_ADDR) names an address of this host: one this
// host can bind a socket to (every 127/8 address, the interfaces' own).
bool isAddressOfThisHost(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  bool bound = false;
  for (const addrinfo* a = found; a != nullptr && !bound; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    bound = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0;
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return bound;
}

// The interface that holds `address`, or "" when none does.
std::string interfaceWithAddress(const std::string& address) {
  ifaddrs* all = nullptr;
  if (::getifaddrs(&all) != 0) return "";
  std::string name;
  for (const ifaddrs* i = all; i != nullptr && name.empty(); i = i->ifa_next) {
    if (i->ifa_addr != nullptr && numericHost(i->ifa_addr) == address) {
      name = i->ifa_name;
    }
  }
  ::freeifaddrs(all);
  return name;
}

std::string hostName() {
  char name[256] = {};
  ::gethostname(name, sizeof(name) - 1);
  return name;
}

}  // namespace ranktest::internal
