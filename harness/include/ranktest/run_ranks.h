#pragma once

// Runs a function in W rank processes, each with its store and process group,
// outside googletest: the shape of gloo's spawn(transport, size, fn), for
// tools and benchmarks. The ranks are supervised as a test's are: the first
// failing rank stops the others, the deadline collects stacks, and the
// result says what went wrong in the words of a test report.
//
// Example:
//   ranktest::RunResult result = ranktest::runRanks(
//       {.world_size = 4}, [](const ranktest::Rank& r) {
//         std::vector<at::Tensor> t{at::ones({8})};
//         r.pg->allreduce(t)->wait();
//       });
//   if (!result.passed()) std::cerr << result.message;

#include <c10/core/Device.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "ranktest/test_options.h"

namespace ranktest {

// What one rank knows while its body runs (a test body or a runRanks body).
struct Rank {
  int rank = 0;
  int world_size = 0;
  // Place on its node (one node of every rank unless launched across hosts).
  int local_rank = 0;
  int local_world_size = 0;
  int node_rank = 0;
  std::string backend;  // "gloo" or "nccl"
  // CPU for gloo, cuda:<local_rank> for nccl.
  c10::Device device{c10::kCPU};
  // The store the group was built on.
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroup> pg;
};

// How runRanks() starts and watches the ranks.
struct RunOptions {
  int world_size = 2;
  std::string backend = "gloo";
  StoreKind store = StoreKind::kFile;
  // For the whole run; it is also the store's and the group's timeout.
  // RANKTEST_TIMEOUT_SCALE multiplies it, as it does a test's.
  std::chrono::milliseconds timeout{60000};
  // Print each rank's output live, "[rank N] "-prefixed, on stderr (so does
  // RANKTEST_VERBOSE=1); otherwise only a failing rank's last lines
  // (RANKTEST_OUTPUT_LINES) appear, in the message.
  bool stream_output = false;
  // Wrap each rank's group in the collective-mismatch check
  // (TestOptions::check_collectives).
  bool check_collectives = false;
};

// How the run ended.
struct RunResult {
  enum class Outcome { kPassed, kSkipped, kFailed };
  Outcome outcome = Outcome::kFailed;
  // Why the ranks skipped (all alike, via skipRank), or every failing rank's
  // report: exception, gtest failure, signal, timeout with stacks, output.
  // Empty when passed.
  std::string message;
  std::chrono::milliseconds elapsed{0};

  bool passed() const { return outcome == Outcome::kPassed; }
};

// Forks `options.world_size` ranks from the calling process (so `body` may
// capture anything) and runs body(rank) in each, on a fresh group of
// `options.backend`. A rank fails when body throws, a gtest assertion in it
// fails, it dies, or the deadline passes. Nothing outlives the call: no rank
// process, store file or port. Throws std::invalid_argument on bad options;
// a variable ranktest reads (RANKTEST_*, WORLD_SIZE, BACKEND) that holds a
// value it cannot use fails the run unstarted, as it fails every test.
//
// Under a launcher (torchrun, mpirun, srun) the process is one rank of the
// launched job instead: it joins the job at its first runRanks (or
// launchedJobPlace) and forks one rank, its own. Every process of the job
// must make the same runRanks calls in the same order; each call is one
// run of the job, with a fresh group, and returns the same result in every
// rank (a failing rank's report in all of them). A run whose world_size is
// not the job's is skipped, saying so, in every rank; store is the job's.
// Call finishRanks() at the end. Under a launcher it cannot run inside a
// googletest test (only rank 0 runs a plain test): that run fails, saying
// so. Throws std::invalid_argument on a launcher's partial environment and
// std::runtime_error where the job does not form.
RunResult runRanks(const RunOptions& options,
                   const std::function<void(const Rank&)>& body);

// This process's place in the job that a launcher started it in.
struct LaunchedJobPlace {
  int rank = 0;
  int world_size = 0;
};

// Where a launcher started this process, joining its job on the first call
// (as runRanks does); nullopt without a launcher. Throws as runRanks.
std::optional<LaunchedJobPlace> launchedJobPlace();

// After a program's last runRanks, with its exit code: under a launcher,
// waits until every rank of the job is done and returns the job's exit code,
// the same in every rank (the first non-zero of rank 0's and this rank's);
// without one, returns `exit_code`.
int finishRanks(int exit_code);

}  // namespace ranktest
