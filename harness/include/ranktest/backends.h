#pragma once

// The c10d backends this build of ranktest can run, and what the machine
// offers them. Checked in the parent, before any rank starts.

#include <cstdint>
#include <optional>
#include <string>

namespace ranktest {

// True when the libtorch found at build time has CUDA and ProcessGroupNCCL.
bool ncclBuilt();
// NCCL's version as major*10000 + minor*100 + patch, when built: the NCCL
// libtorch was built with (and loads).
std::optional<int> ncclVersion();
// torch::cuda::nccl::version()'s packed (major << 32) + (minor << 16) + patch
// as major*10000 + minor*100 + patch (2.28.9 is 22809).
int decodeNcclVersion(std::uint64_t packed);
// Throws std::runtime_error, naming both versions, unless the nccl.h this
// build compiled ProcessGroupNCCL with is libtorch's NCCL: its structs would
// be laid out differently (heap corruption, not an error). No-op without NCCL.
void checkNcclHeaderMatchesTorch();
// GPUs this process may use, honouring CUDA_VISIBLE_DEVICES, counted without
// initialising CUDA (a forked rank must not inherit a CUDA context).
int visibleGpuCount();
// The backend named by BACKEND, "gloo" by default.
std::string backendFromEnvironment();

}  // namespace ranktest
