#include "ranktest/backends.h"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "ranktest_build_config.h"
#include "wire/check.h"

#ifdef RANKTEST_WITH_NCCL
#include <nccl.h>
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

int decodeNcclVersion(std::uint64_t packed) {
  const auto major = static_cast<int>(packed >> 32);
  const auto minor = static_cast<int>((packed >> 16) & 0xffff);
  const auto patch = static_cast<int>(packed & 0xffff);
  return major * 10000 + minor * 100 + patch;
}

std::optional<int> ncclVersion() {
#ifdef RANKTEST_WITH_NCCL
  return decodeNcclVersion(torch::cuda::nccl::version());
#else
  return std::nullopt;
#endif
}

void checkNcclHeaderMatchesTorch() {
#ifdef RANKTEST_WITH_NCCL
  constexpr int kHeader = NCCL_MAJOR * 10000 + NCCL_MINOR * 100 + NCCL_PATCH;
  const int torch_nccl = *ncclVersion();
  if (torch_nccl != kHeader) {
    RANKTEST_FAIL(
        "ranktest was compiled against nccl.h " + std::to_string(kHeader) +
        ", but libtorch was built with NCCL " + std::to_string(torch_nccl) +
        ": rebuild with -DRANKTEST_NCCL_INCLUDE_DIR=<the include folder of "
        "that NCCL>");
  }
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
