#include "ranktest/backends.h"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#ifdef RANKTEST_WITH_NCCL
#include <torch/csrc/cuda/nccl.h>
#endif

namespace ranktest {

bool ncclBuilt() {
#ifdef RANKTEST_WITH_NCCL
  return true;
#else
  return false;
#endif
}

std::optional<int> ncclVersion() {
#ifdef RANKTEST_WITH_NCCL
  const auto v = torch::cuda::nccl::version();
  return static_cast<int>(v);
#else
  return std::nullopt;
#endif
}

int visibleGpuCount() {
#ifndef RANKTEST_WITH_NCCL
  return 0;
#else
  int physical = 0;
  if (DIR* dir = ::opendir("/proc/driver/nvidia/gpus")) {
    while (dirent* entry = ::readdir(dir)) {
      if (entry->d_name[0] != '.') ++physical;
    }
    ::closedir(dir);
  }
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible == nullptr) return physical;
  const std::string list(visible);
  if (list.empty()) return 0;
  const int listed =
      1 + static_cast<int>(std::count(list.begin(), list.end(), ','));
  return std::min(listed, physical);
#endif
}

std::string backendFromEnvironment() {
  const char* backend = std::getenv("BACKEND");
  return backend && *backend ? std::string(backend) : std::string("gloo");
}

}  // namespace ranktest
