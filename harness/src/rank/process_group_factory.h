#pragma once

// Builds a rank's process group for a backend name.

#include <c10/core/Device.h>

#include <chrono>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace c10d {
class ProcessGroupGloo;
}  // namespace c10d

namespace ranktest::internal {

// A Gloo group listening on `host`, loopback unless ranks span hosts
// (include ProcessGroupGloo.hpp to use it).
c10::intrusive_ptr<c10d::ProcessGroupGloo> createGlooGroup(
    const c10::intrusive_ptr<c10d::Store>& store, int rank, int world_size,
    std::chrono::milliseconds timeout, const std::string& host = "127.0.0.1");

// The group of `backend`; an NCCL rank binds to GPU `local_rank` (its rank
// on its node).
c10::intrusive_ptr<c10d::ProcessGroup> createProcessGroup(
    const std::string& backend, const c10::intrusive_ptr<c10d::Store>& store,
    int rank, int world_size, int local_rank, std::chrono::milliseconds timeout,
    const std::string& gloo_host = "127.0.0.1");

// The device a rank of `backend` computes on: cuda:<local_rank> for nccl.
c10::Device rankDevice(const std::string& backend, int local_rank);
// The GPU of a rank whose test computes on one whatever its backend:
// cuda:<local_rank mod the visible GPUs>, made the current device.
c10::Device cudaDevice(int local_rank);

}  // namespace ranktest::internal
