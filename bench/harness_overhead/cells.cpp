#include "harness_overhead/cells.h"

#include <cstdio>
#include <set>

#include "harness_overhead/fixtures.h"

namespace harness_overhead {

std::string testName(int index) {
  char name[16];
  std::snprintf(name, sizeof(name), "Run%03d", index);
  return name;
}

void Cells::registerTests(const Config& config, const std::string& only_suite) {
  for (Mode mode : config.modes) {
    const std::vector<int>& sizes = mode == Mode::kBareSpawn
                                        ? config.bare_spawn_world_sizes
                                        : config.world_sizes;
    const int runs = isSpawn(mode) ? config.spawn_runs : config.runs;
    for (int world_size : sizes) {
      const int cell = static_cast<int>(cells_.size());
      cells_.push_back({mode, world_size});
      if (!isBare(mode)) {
        registerRanktestCell(cell, runs, config.reuse_pools, only_suite);
      } else if (only_suite.empty()) {
        registerBareCell(cell, runs, config.program);
      }
    }
  }
}

std::string Cells::suiteBase(int cell) const {
  return std::string(modeName(cells_[cell].mode)) + "_ws" +
         std::to_string(cells_[cell].world_size);
}

void Cells::registerBareCell(int cell, int runs, const std::string& program) {
  const std::string suite = suiteBase(cell);
  suite_cells_[suite] = cell;
  const int world_size = cells_[cell].world_size;
  const bool spawn = isSpawn(cells_[cell].mode);
  for (int i = 0; i < runs; ++i) {
    ::testing::RegisterTest(suite.c_str(), testName(i).c_str(), nullptr,
                            nullptr, __FILE__, __LINE__,
                            [world_size, spawn, program]() -> ::testing::Test* {
                              return new BareTest(world_size, spawn, program);
                            });
  }
}

void Cells::registerRanktestCell(int cell, int runs, int reuse_pools,
                                 const std::string& only_suite) {
  const Mode mode = cells_[cell].mode;
  const std::string base = suiteBase(cell);
  // Reuse: several suites (pools released at each suite's end), each with one
  // extra test that pays for starting the pool.
  const int suites = isReuse(mode) ? reuse_pools : 1;
  const int per_suite = (runs + suites - 1) / suites;
  for (int s = 0; s < suites; ++s) {
    const std::string suite =
        isReuse(mode) ? base + "_pool" + std::to_string(s) : base;
    if (!only_suite.empty() && suite != only_suite) continue;
    suite_cells_[suite] = cell;
    const int tests = isReuse(mode) ? per_suite + 1 : runs;
    for (int i = 0; i < tests; ++i) {
      ranktest::registerTest(
          suite.c_str(), testName(i).c_str(), __FILE__, __LINE__,
          Barrier::testOptions(),
          {ranktest::worldSizes({cells_[cell].world_size}),
           ranktest::startMethod(isSpawn(mode) ? ranktest::StartMethod::kSpawn
                                               : ranktest::StartMethod::kFork),
           ranktest::store(isTcp(mode) ? ranktest::StoreKind::kTcp
                                       : ranktest::StoreKind::kFile),
           ranktest::reuseProcesses(isReuse(mode))},
          &makeBarrier);
    }
  }
}

std::optional<int> Cells::ofSuite(const std::string& suite) const {
  auto it = suite_cells_.find(suite);
  if (it == suite_cells_.end()) return std::nullopt;
  return it->second;
}

std::optional<int> Cells::find(Mode mode, int world_size) const {
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    if (cells_[i].mode == mode && cells_[i].world_size == world_size) {
      return static_cast<int>(i);
    }
  }
  return std::nullopt;
}

std::vector<int> Cells::worldSizes() const {
  std::set<int> sizes;
  for (const Cell& c : cells_) sizes.insert(c.world_size);
  return {sizes.begin(), sizes.end()};
}

}  // namespace harness_overhead
