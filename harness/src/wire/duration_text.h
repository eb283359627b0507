#pragma once

// A duration as the harness's messages write it.

#include <chrono>
#include <string>

namespace ranktest::internal {

// "10 s", "2.5 s", "10.02 s": seconds, as short as they are exact (%g).
std::string secondsText(std::chrono::milliseconds duration);

}  // namespace ranktest::internal
