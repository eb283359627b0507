#pragma once

// What a rank knows while it runs a test body.

#include <c10/core/Device.h>

#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace ranktest::internal {

struct RankContext {
  int rank = 0;
  int world_size = 0;
  std::string backend;
  c10::Device device{c10::kCPU};
  c10::intrusive_ptr<c10d::Store> store;
  c10::intrusive_ptr<c10d::ProcessGroup> pg;
};

}  // namespace ranktest::internal
