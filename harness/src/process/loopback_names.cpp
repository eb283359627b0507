// Loopback addresses are named without asking DNS, in every process of a
// binary linked with ranktest.
//
// libtorch 2.x names each socket it connects (c10d's formatSockAddr calls
// getnameinfo without NI_NUMERICHOST). Its TCPStore client connects to
// 127.0.0.1 as the v4-mapped ::ffff:127.0.0.1, which no /etc/hosts lists, so
// every connect asks DNS for 1.0.0.127.in-addr.arpa; on a host whose DNS
// server is unreachable, one lost packet is the resolver's 5 s timeout (seen
// as 5 s stalls of the TCP store at 8 ranks on a loaded machine, about 1
// test in 10). A loopback address's name says nothing a number does not.
// The linker pulls this file in by --undefined=getnameinfo (CMakeLists.txt).

#include <dlfcn.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

namespace {

bool isLoopback(const sockaddr* address, socklen_t length) {
  if (address == nullptr) return false;
  if (address->sa_family == AF_INET && length >= sizeof(sockaddr_in)) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(address);
    return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
  }
  if (address->sa_family == AF_INET6 && length >= sizeof(sockaddr_in6)) {
    const in6_addr& v6 =
        reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr;
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

using GetNameInfo = int (*)(const sockaddr*, socklen_t, char*, socklen_t, char*,
                            socklen_t, int);

GetNameInfo libcGetNameInfo() {
  // POSIX: dlsym's object pointer converts to a function pointer.
  static const auto next =
      reinterpret_cast<GetNameInfo>(::dlsym(RTLD_NEXT, "getnameinfo"));
  return next;
}

}  // namespace

// NOLINTNEXTLINE(readability-inconsistent-declaration-parameter-name)
extern "C" int getnameinfo(const sockaddr* address, socklen_t length,
                           char* host, socklen_t host_length, char* service,
                           socklen_t service_length, int flags) {
  // A caller that requires a name (NI_NAMEREQD) still gets DNS's answer.
  if (host != nullptr && (flags & NI_NAMEREQD) == 0 &&
      isLoopback(address, length)) {
    flags |= NI_NUMERICHOST;
  }
  return libcGetNameInfo()(address, length, host, host_length, service,
                           service_length, flags);
}
