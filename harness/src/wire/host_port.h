#pragma once

// A store's address as "host:port". An IPv6 host is written in brackets
// ("[::1]:29500"), as URLs and torchrun's --rdzv_endpoint write it, so that
// its own colons are not read as the port's.

#include <string>

namespace ranktest::internal {

// A host (a name, an IPv4 address, or an IPv6 address without brackets) and
// a port.
struct HostPort {
  std::string host;
  int port = 0;
};

// "host:port", with `host` in brackets where it holds a colon. A host given
// in brackets already keeps them.
std::string joinHostPort(const std::string& host, int port);

// The host (brackets removed) and the port (1 to 65535) of "host:port" or
// "[v6]:port". Throws std::invalid_argument naming `address` where it is
// neither (an IPv6 host without brackets included).
HostPort splitHostPort(const std::string& address);

// `host` without the brackets of an IPv6 address ("[::1]" gives "::1").
std::string unbracketed(const std::string& host);

}  // namespace ranktest::internal
