#pragma once

// How a distributed test runs: world sizes, start method, store, deadline,
// process reuse and the requirements the parent checks before starting ranks.

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ranktest/skip_codes.h"

namespace ranktest {

// How rank processes come to life.
enum class StartMethod {
  kFork,   // fork() the test binary's parent process
  kSpawn,  // re-execute the test binary for one test (googletest death-test
           // style)
};

// Where ranks meet.
enum class StoreKind {
  kFile,  // c10d::FileStore on an unlinked temp file (nothing left on disk)
  kTcp,   // c10d::TCPStore served by the parent on a port the kernel picks
};

// What the parent knows about one test instance before it starts ranks.
struct LaunchConditions {
  int world_size = 0;
  std::string backend;  // "gloo" or "nccl"
  int visible_gpus = 0;
  bool nccl_built = false;
  std::optional<int> nccl_version;  // e.g. 21405 for 2.14.5
};

// A skip decided before any rank starts.
struct Skip {
  SkipCode code;
  std::string message;
};

// A condition checked in the parent; returns the skip when it does not hold.
using Requirement = std::function<std::optional<Skip>(const LaunchConditions&)>;

// Options of a fixture (its static testOptions()) and, through traits, of one
// test. Environment variables override them (see README).
struct TestOptions {
  // The world sizes at which the test's assertions hold; one instance each,
  // named <backend>_ws<N>. Under WORLD_SIZE=n, a test declared at n runs at
  // n and is skipped otherwise, with a reason naming these sizes.
  std::vector<int> world_sizes{2};
  // Set when the assertions hold at every world size >= this value: a forced
  // WORLD_SIZE=n >= it then runs the test at n even if n is not listed above.
  std::optional<int> any_world_size_from;
  StartMethod start_method = StartMethod::kFork;
  StoreKind store = StoreKind::kFile;
  // Deadline of one test instance; unset means RANKTEST_TIMEOUT or 60 s.
  std::optional<std::chrono::milliseconds> timeout;
  // Keep rank processes alive across the fixture's tests.
  bool reuse_processes = false;
  // Before each collective on pg(), the ranks compare op, dtypes and shapes;
  // a mismatch fails every rank at once instead of hanging (see README).
  bool check_collectives = false;
  // The test computes on a GPU whatever its backend: device() is
  // cuda:<local rank mod the visible GPUs> (Gloo ranks may share one), and
  // the test is skipped (code 74) before any rank starts where no GPU is
  // visible or libtorch has no CUDA.
  bool on_cuda = false;
  std::vector<Requirement> requirements;
};

// A per-test modification of the fixture's options, given as extra arguments
// of RANKTEST_F. Example: RANKTEST_F(Zero, Step, ranktest::worldSizes({2, 4}))
struct TestTrait {
  std::function<void(TestOptions&)> apply;
};

// The test holds at exactly these sizes (clears a fixture's anyWorldSize).
TestTrait worldSizes(std::vector<int> sizes);
// The test holds at any world size >= `smallest` (see any_world_size_from).
TestTrait anyWorldSize(int smallest = 2);
TestTrait timeout(std::chrono::milliseconds deadline);
TestTrait startMethod(StartMethod method);
TestTrait store(StoreKind kind);
TestTrait reuseProcesses(bool reuse);
TestTrait checkCollectives(bool check = true);
// Sets on_cuda: the test's tensors live on a GPU (see TestOptions).
TestTrait onCuda();
TestTrait require(Requirement requirement);

// Ready requirements, each with its PyTorch skip code.
TestTrait skipIfLessThanGpus(int gpus);
TestTrait requiresGloo();
TestTrait requiresNccl();
TestTrait requiresNcclVersion(int version, std::string reason);
TestTrait skipIfSmallWorldSize(int min_world_size);
TestTrait skipIfOddWorldSize();
// Skips unconditionally, with the generic code and `reason`.
TestTrait skipAlways(std::string reason);

std::string toString(StartMethod method);
std::string toString(StoreKind kind);

}  // namespace ranktest
