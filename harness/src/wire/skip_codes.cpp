#include "ranktest/skip_codes.h"

#include <algorithm>

namespace ranktest {

SkipCode skipCodeForGpus(int gpus) {
  if (gpus <= 1) return SkipCode::kLessThan1Gpu;
  if (gpus == 2) return SkipCode::kLessThan2Gpus;
  return static_cast<SkipCode>(static_cast<int>(SkipCode::kLessThan3Gpus) +
                               std::min(gpus, 8) - 3);
}

std::string describeSkipCode(SkipCode code) {
  const int value = static_cast<int>(code);
  switch (code) {
    case SkipCode::kBackendUnavailable:
      return "distributed backend is not available";
    case SkipCode::kSmallWorldSize:
      return "world size too small";
    case SkipCode::kNoCuda:
      return "CUDA is not available";
    case SkipCode::kNcclMissing:
      return "c10d not compiled with NCCL support";
    case SkipCode::kRocm:
      return "test skipped for ROCm";
    case SkipCode::kNoPeerAccess:
      return "GPUs lack peer access";
    case SkipCode::kGeneric:
      return "skipped";
    case SkipCode::kOddWorldSize:
      return "world size is odd";
    case SkipCode::kFeatureUnavailable:
      return "a needed feature is unavailable";
    case SkipCode::kNoAccelerator:
      return "no accelerator";
    default:
      break;
  }
  const int gpus = value == 75 ? 1 : value == 77 ? 2 : value - 77;
  return "needs at least " + std::to_string(gpus) + " GPU" +
         (gpus > 1 ? "s" : "");
}

std::optional<SkipCode> skipCodeFromExitCode(int exit_code) {
  if (exit_code >= 72 && exit_code <= 89) {
    return static_cast<SkipCode>(exit_code);
  }
  return std::nullopt;
}

}  // namespace ranktest
