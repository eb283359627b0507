// The ranks of a launched job claim its store for the job before anything
// else (job_claim.h): a rank of another job that reaches it is refused.

#include "job/job_claim.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "loopback_store.h"

namespace {

using ranktest::internal::claimStoreForJob;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;

TEST(HarnessJobClaim, RanksOfTheJobShareItsStoreAndOthersAreRefused) {
  harness_suite::LoopbackStore store(3);
  const std::string job = "Slurm job 12 step 0";
  EXPECT_NO_THROW(claimStoreForJob(*store.clients[0], job, "127.0.0.1:1"));
  EXPECT_NO_THROW(claimStoreForJob(*store.clients[1], job, "127.0.0.1:1"));
  EXPECT_THAT(
      [&] {
        claimStoreForJob(*store.clients[2], "Slurm job 212 step 0",
                         "127.0.0.1:1");
      },
      ThrowsMessage<std::runtime_error>(HasSubstr(
          "ranktest: the rendezvous store at 127.0.0.1:1 is another job's "
          "(Slurm job 12 step 0), not this rank's (Slurm job 212 step 0): "
          "two jobs met at one address; give each its own MASTER_ADDR and "
          "MASTER_PORT")));
  // A launcher that names no job claims nothing.
  EXPECT_NO_THROW(claimStoreForJob(*store.clients[2], "", "127.0.0.1:1"));
}

}  // namespace
