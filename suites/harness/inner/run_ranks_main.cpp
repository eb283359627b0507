// A program of its own (no googletest run) that runs its ranks with
// ranktest::runRanks. Under a launcher each of its processes is one rank
// of one job; every rank prints what each of three runs returned:
//   1. the ranks' parents are distinct processes (one job of the launched
//      processes, not a job per process) and an allreduce sums the ranks;
//   2. rank 1 throws: every rank's result fails, naming rank 1's message;
//   3. a run of another size than the job's: skipped, saying so.
// Exits 0 where all three came out so, as the job agrees (finishRanks).

#include <ATen/ATen.h>
#include <unistd.h>

#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "ranktest/run_ranks.h"

namespace {

const char* outcomeName(const ranktest::RunResult& result) {
  switch (result.outcome) {
    case ranktest::RunResult::Outcome::kPassed:
      return "passed";
    case ranktest::RunResult::Outcome::kSkipped:
      return "skipped";
    case ranktest::RunResult::Outcome::kFailed:
      break;
  }
  return "failed";
}

// Every rank's parent process, gathered: distinct in one job of launched
// processes (each forks its own rank), one and the same in a forked job.
void checkOneJob(const ranktest::Rank& rank) {
  std::vector<at::Tensor> mine{
      at::full({1}, static_cast<std::int64_t>(::getppid()), at::kLong)};
  std::vector<std::vector<at::Tensor>> all(1);
  for (int r = 0; r < rank.world_size; ++r) {
    all[0].push_back(at::empty_like(mine[0]));
  }
  rank.pg->allgather(all, mine)->wait();
  for (int a = 0; a < rank.world_size; ++a) {
    for (int b = a + 1; b < rank.world_size; ++b) {
      if (all[0][a].item<std::int64_t>() == all[0][b].item<std::int64_t>()) {
        throw std::runtime_error("ranks " + std::to_string(a) + " and " +
                                 std::to_string(b) + " share a parent");
      }
    }
  }
  std::vector<at::Tensor> sum{at::full({1}, rank.rank, at::kLong)};
  rank.pg->allreduce(sum)->wait();
  const std::int64_t expected = rank.world_size * (rank.world_size - 1) / 2;
  if (sum[0].item<std::int64_t>() != expected) {
    throw std::runtime_error("the allreduce summed to " +
                             std::to_string(sum[0].item<std::int64_t>()));
  }
}

}  // namespace

int main() {
  const std::optional<ranktest::LaunchedJobPlace> place =
      ranktest::launchedJobPlace();
  const int world = place ? place->world_size : 2;
  const std::string me =
      "[run_ranks_main rank " + std::to_string(place ? place->rank : -1) + "] ";

  const ranktest::RunResult one_job =
      ranktest::runRanks({.world_size = world}, checkOneJob);
  std::cout << me << "one job: " << outcomeName(one_job) << " "
            << one_job.message << std::endl;

  const ranktest::RunResult failing =
      ranktest::runRanks({.world_size = world}, [](const ranktest::Rank& r) {
        if (r.rank == 1) throw std::runtime_error("rank one fails on purpose");
      });
  const bool named =
      failing.message.find("rank one fails on purpose") != std::string::npos;
  std::cout << me << "failing rank: " << outcomeName(failing)
            << (named ? ", its message named" : ", its message missing")
            << std::endl;

  const ranktest::RunResult other_size = ranktest::runRanks(
      {.world_size = world + 1}, [](const ranktest::Rank&) {});
  std::cout << me << "other size: " << outcomeName(other_size) << " "
            << other_size.message << std::endl;

  const bool as_expected =
      one_job.passed() &&
      failing.outcome == ranktest::RunResult::Outcome::kFailed && named &&
      (!place || other_size.outcome == ranktest::RunResult::Outcome::kSkipped);
  return ranktest::finishRanks(as_expected ? 0 : 1);
}
