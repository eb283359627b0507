#include "wire/number_text.h"

#include <charconv>
#include <cmath>
#include <system_error>

namespace ranktest::internal {

std::optional<std::int64_t> parseInteger(std::string_view text,
                                         std::int64_t min, std::int64_t max,
                                         int base) {
  if (text.empty()) return std::nullopt;
  std::int64_t value = 0;
  const char* begin = &text.front();
  const char* end = begin + text.size();
  // from_chars takes no '+': a leading '+' stays an error, as in a port.
  const auto [stop, error] = std::from_chars(begin, end, value, base);
  if (error != std::errc() || stop != end || value < min || value > max) {
    return std::nullopt;
  }
  return value;
}

std::optional<double> parseNumber(std::string_view text, double min,
                                  double max) {
  if (text.empty()) return std::nullopt;
  double value = 0;
  const char* begin = &text.front();
  const char* end = begin + text.size();
  const auto [stop, error] = std::from_chars(begin, end, value);
  if (error != std::errc() || stop != end || !std::isfinite(value) ||
      value < min || value > max) {
    return std::nullopt;
  }
  return value;
}

}  // namespace ranktest::internal
