#pragma once

// Builds a rank's process group for a backend name.

#include <c10/core/Device.h>

#include <chrono>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace ranktest::internal {

c10::intrusive_ptr<c10d::ProcessGroup> createProcessGroup(
    const std::string& backend, const c10::intrusive_ptr<c10d::Store>& store,
    int rank, int world_size, std::chrono::milliseconds timeout);

// The device a rank of `backend` computes on.
c10::Device rankDevice(const std::string& backend, int rank);

}  // namespace ranktest::internal
