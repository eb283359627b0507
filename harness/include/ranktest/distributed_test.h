#pragma once

// A distributed test: a fixture whose body runs once in every rank, each rank a
// real process with its c10d process group ready.
//
// Example:
//   class Collectives : public ranktest::DistributedTest {
//    public:
//     static ranktest::TestOptions testOptions() {
//       return {.world_sizes = {2, 3, 4}};
//     }
//   };
//   RANKTEST_F(Collectives, AllreduceSumsRanks) {
//     std::vector<at::Tensor> t{at::full({2}, rank())};
//     pg()->allreduce(t)->wait();
//     EXPECT_EQ(t[0][0].item<int>(), worldSize() * (worldSize() - 1) / 2);
//   }
// registers Collectives.AllreduceSumsRanks/gloo_ws2, .../gloo_ws3,
// .../gloo_ws4.

#include <c10/core/Device.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "ranktest/test_options.h"

namespace ranktest {

struct Rank;
namespace internal {
class RankRunner;
}  // namespace internal

// Base of every distributed fixture. Construction, SetUp(), the body and
// TearDown() all run inside each rank, after its process group is built; the
// parent process never constructs a fixture.
class DistributedTest {
 public:
  virtual ~DistributedTest() = default;

  // The fixture's defaults; a fixture hides this with its own.
  static TestOptions testOptions() { return {}; }

  int rank() const;
  int worldSize() const;
  // This rank's place on its node: under a launcher as the launcher placed
  // it (node-local subgroups are these); otherwise one node of every rank.
  int localRank() const;
  int localWorldSize() const;
  int nodeRank() const;
  // This rank's process group for the test's backend.
  const c10::intrusive_ptr<c10d::ProcessGroup>& pg() const;
  // The store the group was built on (prefixed per test).
  const c10::intrusive_ptr<c10d::Store>& store() const;
  // "gloo" or "nccl".
  const std::string& backend() const;
  // The rank's device: CPU for gloo, cuda:<localRank()> for nccl.
  c10::Device device() const;

 protected:
  virtual void SetUp() {}
  virtual void TearDown() {}

 private:
  virtual void rankBody() = 0;
  friend class internal::RankRunner;
  const Rank* context_ = nullptr;
};

// Skips this rank's test from anywhere in its call stack. Every rank must skip
// alike, otherwise the parent reports the disagreement as a failure.
[[noreturn]] void skipRank(SkipCode code, std::string message);

// Makes a fresh fixture, in a rank, for one run of a test body.
using FixtureFactory = std::function<std::unique_ptr<DistributedTest>()>;

// Registers a distributed test at run time, as ::testing::RegisterTest does
// for plain tests (RANKTEST_F calls it from a static): one gtest test per
// world size of `fixture_options` with `traits` applied. Call it before
// ranktest::init(), in the same order in every run of the binary: a spawned
// rank finds its test by name. Throws std::logic_error on a duplicate name or
// unusable options. Returns true.
bool registerTest(const std::string& suite, const std::string& name,
                  const char* file, int line, TestOptions fixture_options,
                  const std::vector<TestTrait>& traits,
                  const FixtureFactory& factory);

}  // namespace ranktest

#define RANKTEST_INTERNAL_CLASS_(fixture, name) fixture##_##name##_RankTest

// Defines a distributed test of `fixture` (derived from DistributedTest); extra
// arguments are TestTraits (world sizes, deadline, requirements).
#define RANKTEST_F(fixture, name, ...)                                    \
  class RANKTEST_INTERNAL_CLASS_(fixture, name) : public fixture {        \
   private:                                                               \
    void rankBody() override;                                             \
                                                                          \
   public:                                                                \
    static std::unique_ptr<::ranktest::DistributedTest> make() {          \
      return std::make_unique<RANKTEST_INTERNAL_CLASS_(fixture, name)>(); \
    }                                                                     \
    static inline const bool registered_ = ::ranktest::registerTest(      \
        #fixture, #name, __FILE__, __LINE__, fixture::testOptions(),      \
        {__VA_ARGS__}, &make);                                            \
  };                                                                      \
  void RANKTEST_INTERNAL_CLASS_(fixture, name)::rankBody()
