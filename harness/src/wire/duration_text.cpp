#include "wire/duration_text.h"

#include <cstdio>

namespace ranktest::internal {

std::string secondsText(std::chrono::milliseconds duration) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g s",
                static_cast<double>(duration.count()) / 1000.0);
  return text;
}

}  // namespace ranktest::internal
