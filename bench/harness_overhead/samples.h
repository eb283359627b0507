#pragma once

// What one test measured (a sample), its timeline, and the questions the
// report asks of all samples of a cell.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness_overhead/board.h"
#include "harness_overhead/cells.h"
#include "harness_overhead/clocks.h"

namespace harness_overhead {

struct Sample {
  int cell = 0;
  std::string test;
  bool pool_start = false;  // reuse: the test that started its pool
  bool ok = false;
  std::int64_t t0_ns = 0;
  std::int64_t total_ns = 0;
  std::int64_t cpu_ns = 0;  // the parent's test thread
  ForkTimes forks;
  std::vector<Slot> slots;  // one per rank
};

// A duration in ns, or nothing where a point was not reached (or stamped).
using OptionalNs = std::optional<std::int64_t>;
OptionalNs diff(const OptionalNs& later, const OptionalNs& earlier);

// The timeline of one test, relative to its start. For the rank points the
// latest rank counts.
struct Timeline {
  OptionalNs first_fork, last_fork, fork_sum;
  OptionalNs alive, pg_ready, body_end, done;
};
Timeline timeline(const Sample& s);

// One number read off a sample and its timeline.
using SampleValue = std::function<OptionalNs(const Sample&, const Timeline&)>;
OptionalNs wholeTest(const Sample& s, const Timeline&);
OptionalNs parentCpu(const Sample& s, const Timeline&);
// The parent's own work: fork() is the kernel copying the parent for a rank.
OptionalNs parentCpuOutsideFork(const Sample& s, const Timeline&);

class Measurements {
 public:
  explicit Measurements(const Cells& cells) : cells_(cells) {}

  void add(Sample sample) { samples_.push_back(std::move(sample)); }
  const Cells& cells() const { return cells_; }
  const std::vector<Sample>& samples() const { return samples_; }

  // In ms, what `value` gives for the passed tests of `cell` that started
  // their pool (`pool_start`) or did not.
  std::vector<double> valuesMs(int cell, bool pool_start,
                               const SampleValue& value) const;
  // Whole tests, in ms.
  std::vector<double> totalsMs(int cell, bool pool_start) const;
  // Median whole test, past pool starts.
  std::optional<double> medianMs(Mode mode, int world_size) const;
  // Median of one timeline segment, past pool starts.
  std::optional<double> segmentMs(int cell, const SampleValue& value) const;

 private:
  const Cells& cells_;
  std::vector<Sample> samples_;
};

}  // namespace harness_overhead
