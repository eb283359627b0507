// The TCP rendezvous has no server thread while the parent forks its ranks:
// a forked child inherits every lock another thread holds at the fork.

#include "process/rendezvous.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <vector>

#include "process/process_facts.h"
#include "torch_compat/tcp_store.h"

namespace {

using ranktest::StoreKind;
using ranktest::internal::connectStore;
using ranktest::internal::Rendezvous;
using ranktest::internal::threadCount;

TEST(HarnessRendezvous, TcpStoreHasNoServerThreadUntilServed) {
  if constexpr (!torch_compat::kServerAdoptsSocket) {
    GTEST_SKIP() << "this libtorch's TCPStore cannot take over a socket, so "
                    "its server starts with the rendezvous";
  }
  const std::size_t before = threadCount();
  Rendezvous rendezvous(StoreKind::kTcp);
  EXPECT_EQ(threadCount(), before) << "a thread started before serve()";
  rendezvous.serve();
  EXPECT_GT(threadCount(), before) << "serve() started no server thread";
}

TEST(HarnessRendezvous, ClientThatConnectsBeforeServeIsAnsweredOnceServed) {
  Rendezvous rendezvous(StoreKind::kTcp);
  const std::string address = rendezvous.address();
  ASSERT_EQ(address.rfind("tcp:", 0), 0u) << address;
  auto client = std::async(std::launch::async, [address] {
    auto store = connectStore(address, 2, std::chrono::seconds(30));
    store->set("key", std::vector<std::uint8_t>{'v'});
    return store->get("key");
  });
  if constexpr (torch_compat::kServerAdoptsSocket) {
    // The client waits in the port's backlog until the server runs.
    EXPECT_EQ(client.wait_for(std::chrono::milliseconds(300)),
              std::future_status::timeout);
  }
  rendezvous.serve();
  ASSERT_EQ(client.wait_for(std::chrono::seconds(30)),
            std::future_status::ready);
  EXPECT_EQ(client.get(), std::vector<std::uint8_t>{'v'});
}

}  // namespace
