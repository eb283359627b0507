#pragma once

// Where the library's own small collectives (ids, lengths, bytes of state)
// put their tensors: NCCL moves CUDA memory only, Gloo and the others host
// memory. A CPU tensor on an NCCL group fails ("No backend type associated
// with device type cpu").

#include <c10/core/Device.h>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

namespace distalgo::internal {

// The current CUDA device on an NCCL group, else the CPU.
inline c10::Device collectiveDevice(const c10d::ProcessGroup& pg) {
  return pg.getBackendName() == "nccl" ? c10::Device(c10::kCUDA)
                                       : c10::Device(c10::kCPU);
}

}  // namespace distalgo::internal
