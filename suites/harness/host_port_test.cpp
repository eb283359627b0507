// A store's address as host:port, IPv6 hosts in brackets.

#include "wire/host_port.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

namespace {

using ranktest::internal::joinHostPort;
using ranktest::internal::splitHostPort;
using ranktest::internal::unbracketed;
using ::testing::HasSubstr;

TEST(HarnessHostPort, Ipv6HostsAreWrittenInBrackets) {
  EXPECT_EQ(joinHostPort("10.0.0.1", 29500), "10.0.0.1:29500");
  EXPECT_EQ(joinHostPort("node-3", 29500), "node-3:29500");
  EXPECT_EQ(joinHostPort("::1", 29500), "[::1]:29500");
  EXPECT_EQ(joinHostPort("[fd00::2]", 1), "[fd00::2]:1");
}

TEST(HarnessHostPort, SplitGivesTheHostWithoutBracketsAndThePort) {
  for (const char* host : {"10.0.0.1", "node-3", "::1", "fd00::2"}) {
    const auto [bare, port] = splitHostPort(joinHostPort(host, 29400));
    EXPECT_EQ(bare, host);
    EXPECT_EQ(port, 29400);
  }
  EXPECT_EQ(unbracketed("[::1]"), "::1");
  EXPECT_EQ(unbracketed("::1"), "::1");
}

TEST(HarnessHostPort, AnAddressWithoutAPortIsRefusedNamingIt) {
  for (const char* address :
       {"host", ":29500", "host:", "host:port", "host:70000", "host:0",
        "host:+80", "[::1", "[]:1", "fd00::1", "::1:29500"}) {
    try {
      splitHostPort(address);
      ADD_FAILURE() << address << " was accepted";
    } catch (const std::invalid_argument& error) {
      EXPECT_THAT(error.what(), HasSubstr(std::string("the store address '") +
                                          address + "' is not host:port"));
    }
  }
}

}  // namespace
