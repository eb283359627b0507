#include "ranktest/internal/process_group_factory.h"

#include <stdexcept>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#ifdef RANKTEST_WITH_NCCL
#include <c10/cuda/CUDAFunctions.h>

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

namespace ranktest::internal {

c10::intrusive_ptr<c10d::ProcessGroupGloo> createGlooGroup(
    const c10::intrusive_ptr<c10d::Store>& store, int rank, int world_size,
    std::chrono::milliseconds timeout, const std::string& host) {
  auto options = c10d::ProcessGroupGloo::Options::create(timeout);
  // An address, not a name: on one machine loopback, where no outside
  // interface needs to resolve.
  options->devices.push_back(
      c10d::ProcessGroupGloo::createDeviceForHostname(host));
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world_size,
                                                     options);
}

c10::intrusive_ptr<c10d::ProcessGroup> createProcessGroup(
    const std::string& backend, const c10::intrusive_ptr<c10d::Store>& store,
    int rank, int world_size, int local_rank, std::chrono::milliseconds timeout,
    const std::string& gloo_host) {
  if (backend == "gloo") {
    return createGlooGroup(store, rank, world_size, timeout, gloo_host);
  }
#ifdef RANKTEST_WITH_NCCL
  if (backend == "nccl") {
    c10::cuda::set_device(static_cast<c10::DeviceIndex>(local_rank));
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

c10::Device rankDevice(const std::string& backend, int local_rank) {
  if (backend == "nccl") {
    return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(local_rank));
  }
  return c10::Device(c10::kCPU);
}

}  // namespace ranktest::internal
