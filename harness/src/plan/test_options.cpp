#include "ranktest/test_options.h"

#include <sstream>
#include <utility>

namespace ranktest {
namespace {

TestTrait requirement(Requirement check) {
  return {[check = std::move(check)](TestOptions& options) {
    options.requirements.push_back(check);
  }};
}

}  // namespace

TestTrait worldSizes(std::vector<int> sizes) {
  // Exactly these sizes: a fixture's "any size" no longer applies.
  return {[sizes = std::move(sizes)](TestOptions& o) {
    o.world_sizes = sizes;
    o.any_world_size_from.reset();
  }};
}

TestTrait anyWorldSize(int smallest) {
  return {[smallest](TestOptions& o) { o.any_world_size_from = smallest; }};
}

TestTrait timeout(std::chrono::milliseconds deadline) {
  return {[deadline](TestOptions& o) { o.timeout = deadline; }};
}

TestTrait startMethod(StartMethod method) {
  return {[method](TestOptions& o) { o.start_method = method; }};
}

TestTrait store(StoreKind kind) {
  return {[kind](TestOptions& o) { o.store = kind; }};
}

TestTrait reuseProcesses(bool reuse) {
  return {[reuse](TestOptions& o) { o.reuse_processes = reuse; }};
}

TestTrait checkCollectives(bool check) {
  return {[check](TestOptions& o) { o.check_collectives = check; }};
}

TestTrait onCuda() {
  return {[](TestOptions& o) { o.on_cuda = true; }};
}

TestTrait require(Requirement check) { return requirement(std::move(check)); }

TestTrait skipIfLessThanGpus(int gpus) {
  return requirement([gpus](const LaunchConditions& c) -> std::optional<Skip> {
    if (c.visible_gpus >= gpus) return std::nullopt;
    return Skip{skipCodeForGpus(gpus),
                "needs at least " + std::to_string(gpus) + " GPUs, found " +
                    std::to_string(c.visible_gpus)};
  });
}

TestTrait requiresGloo() {
  return requirement([](const LaunchConditions& c) -> std::optional<Skip> {
    if (c.backend == "gloo") return std::nullopt;
    return Skip{SkipCode::kBackendUnavailable,
                "needs the gloo backend, BACKEND is " + c.backend};
  });
}

TestTrait requiresNccl() {
  return requirement([](const LaunchConditions& c) -> std::optional<Skip> {
    if (!c.nccl_built) {
      return Skip{SkipCode::kNcclMissing,
                  "c10d not compiled with NCCL support"};
    }
    if (c.backend != "nccl") {
      return Skip{SkipCode::kBackendUnavailable,
                  "needs the nccl backend, BACKEND is " + c.backend};
    }
    return std::nullopt;
  });
}

TestTrait requiresNcclVersion(int version, std::string reason) {
  return requirement([version, reason = std::move(reason)](
                         const LaunchConditions& c) -> std::optional<Skip> {
    if (!c.nccl_built || !c.nccl_version) {
      return Skip{SkipCode::kNcclMissing,
                  "c10d not compiled with NCCL support"};
    }
    if (*c.nccl_version >= version) return std::nullopt;
    return Skip{SkipCode::kNcclMissing,
                "needs NCCL >= " + std::to_string(version) + ", found " +
                    std::to_string(*c.nccl_version) + ": " + reason};
  });
}

TestTrait skipIfSmallWorldSize(int min_world_size) {
  return requirement(
      [min_world_size](const LaunchConditions& c) -> std::optional<Skip> {
        if (c.world_size >= min_world_size) return std::nullopt;
        return Skip{SkipCode::kSmallWorldSize,
                    "needs world size >= " + std::to_string(min_world_size) +
                        ", got " + std::to_string(c.world_size)};
      });
}

TestTrait skipIfOddWorldSize() {
  return requirement([](const LaunchConditions& c) -> std::optional<Skip> {
    if (c.world_size % 2 == 0) return std::nullopt;
    return Skip{SkipCode::kOddWorldSize, "needs an even world size, got " +
                                             std::to_string(c.world_size)};
  });
}

TestTrait skipAlways(std::string reason) {
  return requirement([reason = std::move(reason)](
                         const LaunchConditions&) -> std::optional<Skip> {
    return Skip{SkipCode::kGeneric, reason};
  });
}

std::string toString(StartMethod method) {
  return method == StartMethod::kFork ? "fork" : "spawn";
}

std::string toString(StoreKind kind) {
  return kind == StoreKind::kFile ? "file store" : "tcp store";
}

}  // namespace ranktest
