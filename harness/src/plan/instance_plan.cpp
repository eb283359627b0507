#include "plan/instance_plan.h"

#include <algorithm>
#include <stdexcept>

#include "wire/check.h"

namespace ranktest::internal {
namespace {

bool contains(const std::vector<int>& sizes, int n) {
  return std::find(sizes.begin(), sizes.end(), n) != sizes.end();
}

std::optional<Skip> whySkipped(const TestOptions& options,
                               const CellChoice& cell,
                               const std::string& backend, int world_size) {
  if (backend != cell.backend) {
    const bool built = std::find(cell.built.begin(), cell.built.end(),
                                 cell.backend) != cell.built.end();
    if (!built && cell.backend == "nccl") {
      return Skip{SkipCode::kNcclMissing,
                  "BACKEND=nccl runs only nccl instances, and c10d was not "
                  "compiled with NCCL support"};
    }
    return Skip{SkipCode::kGeneric, "BACKEND=" + cell.backend + " runs only " +
                                        cell.backend + " instances"};
  }
  const std::string forced =
      cell.world_size ? "WORLD_SIZE=" + std::to_string(*cell.world_size) : "";
  if (cell.world_size && world_size != *cell.world_size) {
    if (!holdsAt(options, *cell.world_size)) {
      return Skip{SkipCode::kGeneric, forced + " runs only world size " +
                                          std::to_string(*cell.world_size) +
                                          "; the test is declared at " +
                                          declaredSizes(options)};
    }
    return Skip{SkipCode::kGeneric,
                forced + " runs this test as its " + backend + "_ws" +
                    std::to_string(*cell.world_size) + " instance only"};
  }
  if (!holdsAt(options, world_size)) {
    const int smallest = *std::min_element(options.world_sizes.begin(),
                                           options.world_sizes.end());
    return Skip{
        world_size < smallest ? SkipCode::kSmallWorldSize : SkipCode::kGeneric,
        "the test is declared at " + declaredSizes(options) +
            " (where its assertions hold), not at " + forced};
  }
  return std::nullopt;
}

}  // namespace

bool holdsAt(const TestOptions& options, int world_size) {
  return contains(options.world_sizes, world_size) ||
         (options.any_world_size_from &&
          world_size >= *options.any_world_size_from);
}

std::string declaredSizes(const TestOptions& options) {
  std::string text =
      options.world_sizes.size() == 1 ? "world size " : "world sizes ";
  for (std::size_t i = 0; i < options.world_sizes.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(options.world_sizes[i]);
  }
  if (options.any_world_size_from) {
    text += " or any >= " + std::to_string(*options.any_world_size_from);
  }
  return text;
}

std::string PlannedInstance::suffix() const {
  return backend + "_ws" + std::to_string(world_size);
}

std::vector<PlannedInstance> planInstances(const TestOptions& options,
                                           const CellChoice& cell) {
  if (options.world_sizes.empty()) {
    RANKTEST_FAIL_ARG("declares no world size");
  }
  for (int world_size : options.world_sizes) {
    if (world_size < 1) {
      RANKTEST_FAIL_ARG("declares world size " + std::to_string(world_size) +
                        " (< 1)");
    }
  }
  std::vector<PlannedInstance> planned;
  auto add = [&](const std::string& backend, int world_size) {
    for (const PlannedInstance& p : planned) {
      if (p.backend == backend && p.world_size == world_size) return;
    }
    planned.push_back(
        {backend, world_size, whySkipped(options, cell, backend, world_size)});
  };
  for (const std::string& backend : cell.built) {
    for (int world_size : options.world_sizes) add(backend, world_size);
  }
  if (!cell.declared_only) {
    if (cell.world_size) {
      add(cell.backend, *cell.world_size);
    } else {
      for (int world_size : options.world_sizes) add(cell.backend, world_size);
    }
  }
  return planned;
}

}  // namespace ranktest::internal
