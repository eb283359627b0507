#include "ranktest/internal/host_port.h"

#include <cstdlib>
#include <stdexcept>

namespace ranktest::internal {

std::string unbracketed(const std::string& host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    return host.substr(1, host.size() - 2);
  }
  return host;
}

std::string joinHostPort(const std::string& host, int port) {
  const std::string bare = unbracketed(host);
  const std::string shown =
      bare.find(':') == std::string::npos ? bare : "[" + bare + "]";
  return shown + ":" + std::to_string(port);
}

HostPort splitHostPort(const std::string& address) {
  const std::size_t colon = address.rfind(':');
  const auto malformed = [&] {
    return std::invalid_argument("ranktest: the store address '" + address +
                                 "' is not host:port");
  };
  if (colon == std::string::npos || colon == 0) throw malformed();
  const std::string port = address.substr(colon + 1);
  char* end = nullptr;
  const long value = std::strtol(port.c_str(), &end, 10);
  if (port.empty() || *end != '\0' || value < 0 || value > 65535) {
    throw malformed();
  }
  const std::string host = address.substr(0, colon);
  // "[v6]" keeps its brackets up to here; an unbracketed "::1:29500" splits
  // at its last colon.
  if (host.front() == '[' && host.back() != ']') throw malformed();
  return HostPort{unbracketed(host), static_cast<int>(value)};
}

}  // namespace ranktest::internal
