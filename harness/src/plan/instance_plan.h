#pragma once

// Which instances a distributed test registers, and which of them a run
// selects. The names come from the test's declaration and the backends this
// build has, so that ctest and CI scripts see the same names whatever the
// environment; WORLD_SIZE and BACKEND pick the cell that runs and skip the
// other instances with a reason, never silently.

#include <optional>
#include <string>
#include <vector>

#include "ranktest/test_options.h"

namespace ranktest::internal {

// The run's choice of matrix cell: WORLD_SIZE and BACKEND.
struct CellChoice {
  std::optional<int> world_size;   // unset: every declared size
  std::string backend = "gloo";    // the backend whose instances run
  std::vector<std::string> built;  // backends compiled in, e.g. {"gloo"}
  // True when only the declared names are wanted (--gtest_list_tests): the
  // cell's extra instances are not listed, so discovery never depends on the
  // environment.
  bool declared_only = false;
};

// One instance to register: <backend>_ws<world_size>, and why this run skips
// it (unset: it runs).
struct PlannedInstance {
  std::string backend;
  int world_size = 0;
  std::optional<Skip> deselected;

  std::string suffix() const;  // "gloo_ws2"
};

// Whether a test with `options` holds at `world_size`: one of its declared
// sizes, or at least its `any_world_size_from`.
bool holdsAt(const TestOptions& options, int world_size);

// "world sizes 2, 4" or "world size 4 or any >= 2".
std::string declaredSizes(const TestOptions& options);

// The declared instances (built backends x declared sizes) plus those of the
// chosen cell, in a stable order; each declared one outside the cell, and
// each cell one at a size where the test does not hold, carries its skip.
std::vector<PlannedInstance> planInstances(const TestOptions& options,
                                           const CellChoice& cell);

}  // namespace ranktest::internal
