#pragma once

// The c10d backends this build of ranktest can run, and what the machine
// offers them. Checked in the parent, before any rank starts.

#include <optional>
#include <string>

namespace ranktest {

// True when the libtorch found at build time has CUDA and ProcessGroupNCCL.
bool ncclBuilt();
// NCCL's version as major*10000 + minor*100 + patch, when built.
std::optional<int> ncclVersion();
// GPUs this process may use, honouring CUDA_VISIBLE_DEVICES, counted without
// initialising CUDA (a forked rank must not inherit a CUDA context).
int visibleGpuCount();
// The backend named by BACKEND, "gloo" by default.
std::string backendFromEnvironment();

}  // namespace ranktest
