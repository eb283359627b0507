#pragma once

// The one parser of the numbers ranktest reads from text it does not write
// itself (environment variables, launchers' variables): the whole text must
// be the number, and the number must lie in its range. strtol and friends
// accept a prefix, wrap or saturate out of range (4294967297 read as an
// int is 1) and read "inf" as a number; these do none of that.

#include <cstdint>
#include <optional>
#include <string_view>

namespace ranktest::internal {

// `text` as an integer in [min, max], decimal (or in `base`, e.g. 16 for
// the hexadecimal offsets of stack frames, without "0x"); nullopt otherwise.
std::optional<std::int64_t> parseInteger(std::string_view text,
                                         std::int64_t min, std::int64_t max,
                                         int base = 10);

// `text` as a finite decimal number in [min, max] (a number of seconds, a
// factor); nullopt otherwise.
std::optional<double> parseNumber(std::string_view text, double min,
                                  double max);

}  // namespace ranktest::internal
