#include "wire/host_port.h"

#include <stdexcept>

#include "wire/number_text.h"

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
  const std::string host = address.substr(0, colon);
  const std::optional<std::int64_t> value =
      port.size() > 5 ? std::nullopt : parseInteger(port, 1, 65535);
  // An IPv6 host must be in brackets: "fd00::1" alone reads as host
  // "fd00:" and port 1.
  const bool bracketed = host.front() == '[' && host.back() == ']';
  if (!value || host == "[]" ||
      (!bracketed && host.find_first_of("[]:") != std::string::npos)) {
    throw malformed();
  }
  return HostPort{unbracketed(host), static_cast<int>(*value)};
}

}  // namespace ranktest::internal
