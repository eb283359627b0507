#include "ranktest/internal/job_claim.h"

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "ranktest/internal/first_value.h"

namespace ranktest::internal {

void claimStoreForJob(c10d::Store& store, const std::string& job,
                      const std::string& address) {
  if (job.empty()) return;
  const std::vector<std::uint8_t> mine(job.begin(), job.end());
  if (setFirst(store, "ranktest/job", mine)) return;
  const std::vector<std::uint8_t> theirs = store.get("ranktest/job");
  if (theirs == mine) return;
  throw std::runtime_error(
      "ranktest: the rendezvous store at " + address + " is another job's (" +
      std::string(theirs.begin(), theirs.end()) + "), not this rank's (" + job +
      "): two jobs met at one address; give each its own MASTER_ADDR and "
      "MASTER_PORT");
}

}  // namespace ranktest::internal
