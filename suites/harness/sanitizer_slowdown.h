#pragma once

// How many times longer the harness's self-tests may take in a sanitizer
// build: a spawned ASan binary loads libtorch for seconds and stacks
// symbolize slower. Deadlines and bounds on elapsed time that include a
// rank's start scale by it, in the inner binary and in the tests that run it.

namespace harness_suite {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr int kSanitizerSlowdown = 3;
#else
inline constexpr int kSanitizerSlowdown = 1;
#endif

}  // namespace harness_suite
