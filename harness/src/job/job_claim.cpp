#include "job/job_claim.h"

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "job/first_value.h"
#include "wire/check.h"
#include "wire/store_keys.h"

namespace ranktest::internal {

void claimStoreForJob(c10d::Store& store, const std::string& job,
                      const std::string& address) {
  if (job.empty()) return;
  const std::vector<std::uint8_t> mine(job.begin(), job.end());
  if (setFirst(store, keys::job(), mine)) return;
  const std::vector<std::uint8_t> theirs = store.get(keys::job());
  if (theirs == mine) return;
  RANKTEST_FAIL(
      "ranktest: the rendezvous store at " + address + " is another job's (" +
      std::string(theirs.begin(), theirs.end()) + "), not this rank's (" + job +
      "): two jobs met at one address; give each its own MASTER_ADDR and "
      "MASTER_PORT");
}

}  // namespace ranktest::internal
