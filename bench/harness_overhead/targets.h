#pragma once

// The targets the harness is held to, each with what was measured and
// whether it was met.

#include <string>
#include <vector>

#include "harness_overhead/pytorch_samples.h"
#include "harness_overhead/samples.h"
#include "harness_overhead/table.h"

namespace harness_overhead {

struct Target {
  std::string what;
  std::string measured;
  std::string verdict;  // "met", or "**not met**" and where
};

// The targets whose cells were measured.
std::vector<Target> targets(const Measurements& m, const PyTorchSamples& py);
Table targetTable(const std::vector<Target>& list);

}  // namespace harness_overhead
