#include "rank/process_group_factory.h"

#include <algorithm>
#include <stdexcept>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include "ranktest_build_config.h"

#ifdef RANKTEST_WITH_NCCL
#include <c10/cuda/CUDAFunctions.h>

#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#endif

#include "ranktest/backends.h"
#include "torch_compat/process_group.h"
#include "wire/check.h"

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
    // CUDA tensors too, as PyTorch registers Gloo (it stages them on the CPU).
    return torch_compat::asProcessGroup(
        createGlooGroup(store, rank, world_size, timeout, gloo_host), store,
        torch_compat::BackendKind::kGloo, {c10::kCPU, c10::kCUDA});
  }
#ifdef RANKTEST_WITH_NCCL
  if (backend == "nccl") {
    checkNcclHeaderMatchesTorch();
    const c10::Device gpu(c10::kCUDA,
                          static_cast<c10::DeviceIndex>(local_rank));
    c10::cuda::set_device(gpu.index());
    auto options = c10d::ProcessGroupNCCL::Options::create();
    options->timeout = timeout;
    return torch_compat::asProcessGroup(
        c10::make_intrusive<c10d::ProcessGroupNCCL>(store, rank, world_size,
                                                    options),
        store, torch_compat::BackendKind::kNccl, {c10::kCUDA}, gpu);
  }
#endif
  RANKTEST_FAIL_ARG("ranktest: backend '" + backend +
                    "' is not built (built: gloo" +
#ifdef RANKTEST_WITH_NCCL
                    std::string(", nccl") +
#else
                    std::string() +
#endif
                    ")");
}

c10::Device cudaDevice(int local_rank) {
  const int gpus = std::max(visibleGpuCount(), 1);
  const c10::Device gpu(c10::kCUDA,
                        static_cast<c10::DeviceIndex>(local_rank % gpus));
#ifdef RANKTEST_WITH_NCCL
  c10::cuda::set_device(gpu.index());
#endif
  return gpu;
}

c10::Device rankDevice(const std::string& backend, int local_rank) {
  if (backend == "nccl") {
    return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(local_rank));
  }
  return c10::Device(c10::kCPU);
}

}  // namespace ranktest::internal
