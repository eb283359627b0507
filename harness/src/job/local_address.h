#pragma once

// This host's side of a launched job's network: which of its addresses
// leads toward MASTER_ADDR, whether MASTER_ADDR is one of its own, which
// interface holds an address, and its name.

#include <sys/socket.h>

#include <string>

namespace ranktest::internal {

// The numeric text of an IPv4 or IPv6 socket address ("" for another kind).
std::string numericHost(const sockaddr* address);
// The address of this host that leads toward `host`:`port` (no packet is
// sent); throws, naming MASTER_ADDR, where it does not resolve or routes
// nowhere.
std::string localAddressToward(const std::string& host, int port);
// Whether `host` names an address of this host.
bool isAddressOfThisHost(const std::string& host);
// The interface that holds `address`, or "" when none does.
std::string interfaceWithAddress(const std::string& address);
// This host's name.
std::string hostName();

}  // namespace ranktest::internal
