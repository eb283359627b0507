#pragma once

// Cells: one mode at one world size, each a gtest suite of distinct
// registered tests (a reuse cell: several suites, one per pool), so that
// every sample is a whole test as gtest runs it.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness_overhead/config.h"
#include "harness_overhead/modes.h"

namespace harness_overhead {

struct Cell {
  Mode mode;
  int world_size;
};

class Cells {
 public:
  // Registers every cell's tests, in the order they run. A spawned rank
  // registers the suite of its own test only (`only_suite`): it must find its
  // test by name, and the other few hundred would only slow its start.
  void registerTests(const Config& config, const std::string& only_suite);

  const std::vector<Cell>& all() const { return cells_; }
  const Cell& operator[](int cell) const { return cells_[cell]; }
  // The cell a suite measures, if it is one of ours.
  std::optional<int> ofSuite(const std::string& suite) const;
  std::optional<int> find(Mode mode, int world_size) const;
  // Every world size of any cell, ascending.
  std::vector<int> worldSizes() const;

 private:
  // "<mode>_ws<world size>": the cell's suite, or its pools' prefix.
  std::string suiteBase(int cell) const;
  void registerBareCell(int cell, int runs, const std::string& program);
  void registerRanktestCell(int cell, int runs, int reuse_pools,
                            const std::string& only_suite);

  std::vector<Cell> cells_;
  std::map<std::string, int> suite_cells_;
};

// The name of a cell's test number `index`: "Run000", "Run001", ...
std::string testName(int index);

}  // namespace harness_overhead
