#pragma once

// The one table of exit codes a rank uses to say "skipped". The numbers follow
// PyTorch's TEST_SKIPS so that tools written for its harness read ours alike.

#include <optional>
#include <string>

namespace ranktest {

// Why a test was skipped; the value is the rank's exit code.
enum class SkipCode : int {
  kBackendUnavailable = 72,
  kSmallWorldSize = 73,
  kNoCuda = 74,
  kLessThan1Gpu = 75,
  kNcclMissing = 76,
  kLessThan2Gpus = 77,
  kRocm = 78,
  kNoPeerAccess = 79,
  kLessThan3Gpus = 80,
  kLessThan4Gpus = 81,
  kLessThan5Gpus = 82,
  kLessThan6Gpus = 83,
  kLessThan7Gpus = 84,
  kLessThan8Gpus = 85,
  kGeneric = 86,
  kOddWorldSize = 87,
  kFeatureUnavailable = 88,
  kNoAccelerator = 89,
};

// Exit code of a rank whose body failed (PyTorch's TEST_ERROR_EXIT_CODE).
inline constexpr int kTestErrorExitCode = 10;

// Exit code of a rank that could not put its descriptors in place (before
// its body ran; e.g. RLIMIT_NOFILE too low). It printed the reason.
inline constexpr int kRankSetupExitCode = 71;

// The skip code for "needs at least `gpus` GPUs" (1..8; more maps to 8's).
SkipCode skipCodeForGpus(int gpus);

// The code's meaning, e.g. "c10d not compiled with NCCL support".
std::string describeSkipCode(SkipCode code);

// The skip code an exit status stands for, if it is one.
std::optional<SkipCode> skipCodeFromExitCode(int exit_code);

}  // namespace ranktest
