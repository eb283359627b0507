#pragma once

#include <stdexcept>

namespace distalgo::quantization {

// Thrown by the quantized collectives (collectives.h) when the process
// group's backend lacks a collective they need (c10d's "does not support").
// The backend refuses before sending anything, on every rank alike, so a
// caller may fall back or, in a test, skip.
class UnsupportedCollective : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace distalgo::quantization
