#include "ranktest/internal/process_group_factory.h"

#include <stdexcept>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#ifdef RANKTEST_WITH_NCCL
#include <c10/cuda/CUDAFunctions.h>

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace ranktest::internal {

c10::intrusive_ptr<c10d::ProcessGroup> createProcessGroup(
    const std::string& backend, const c10::intrusive_ptr<c10d::Store>& store,
    int rank, int world_size, std::chrono::milliseconds timeout) {
  if (backend == "gloo") {
    auto options = c10d::ProcessGroupGloo::Options::create(timeout);
    // Loopback only: ranks share the machine, and no outside interface needs
    // to resolve.
    options->devices.push_back(
        c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world_size,
                                                       options);
  }
#ifdef RANKTEST_WITH_NCCL
  if (backend == "nccl") {
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(rank));
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, world_size,
                                                       options);
  }
#endif
  throw std::invalid_argument("ranktest: backend '" + backend +
                              "' is not built (built: gloo" +
#ifdef RANKTEST_WITH_NCCL
                              std::string(", nccl") +
#else
                              std::string() +
#endif
                              ")");
}

c10::Device rankDevice(const std::string& backend, int rank) {
  if (backend == "nccl") {
    return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(rank));
  }
  return c10::Device(c10::kCPU);
}

}  // namespace ranktest::internal
