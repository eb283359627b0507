#pragma once

// The runner of every benchmark that times steps, after gloo's
// benchmark::Benchmark: a Mode is one way of doing a step in one rank, set
// up by its constructor and torn down by its destructor; timeModes() runs
// several modes side by side in interleaved rounds and has rank 0 write
// their samples (bench/README.md, "Method").
//
// Example:
//   std::vector<bench::NamedMode> modes;
//   modes.push_back({"adam", std::make_unique<AdamStep>(rank)});
//   modes.push_back({"zero", std::make_unique<ZeroStep>(rank)});
//   bench::timeModes(rank, modes, {.steps = 80}, {"deep_mlp", "4"}, out);

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "common/sample_file.h"
#include "ranktest/run_ranks.h"

namespace bench {

// A number of this rank read after the timed steps (e.g. state bytes).
struct RankValue {
  std::string metric;
  double value = 0;
};

class Mode {
 public:
  virtual ~Mode() = default;

  // The timed unit: one training step or one collective call. `index`
  // counts the mode's steps, warm-up included, from 0.
  virtual void step(int index) = 0;
  // Untimed work before each step (e.g. restoring a reduced input).
  virtual void prepare(int index) {}
  // Untimed work around each block of steps (e.g. entering a Join).
  virtual void startBlock() {}
  virtual void endBlock() {}
  // After the warm-up (e.g. resetting counters).
  virtual void startTiming() {}
  virtual std::vector<RankValue> rankValues() { return {}; }
};

struct NamedMode {
  std::string name;
  std::unique_ptr<Mode> mode;
};

struct Schedule {
  int warmup = 5;   // untimed steps of each mode first
  int steps = 100;  // timed steps of each mode
  int block = 10;   // steps of one mode in a row
};

// Warms every mode up, then runs rounds: round r runs one block of every
// mode, from mode r % modes.size() on. Rank 0 appends to `out` rows of
// `key` followed by <mode> <round> step_us <slowest rank's time> for each
// timed step, and <mode> - <metric> <value> for each rank's values, in rank
// order. Collective: every rank passes the same modes in the same order.
void timeModes(const ranktest::Rank& rank, std::vector<NamedMode>& modes,
               const Schedule& schedule, const Row& key, const SampleFile& out);

// Microseconds since `start` on std::chrono::steady_clock.
double microsSince(std::chrono::steady_clock::time_point start);

}  // namespace bench
