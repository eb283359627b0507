#pragma once

#include <stdexcept>
#include <string>

namespace distalgo::quantization {

// Thrown by the quantized collectives (collectives.h) when the process
// group's backend lacks a collective they need (c10d's "does not support").
// The backend refuses before sending anything, on every rank alike, so a
// caller may fall back or, in a test, skip.
class UnsupportedCollective : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// True when `message` (a c10::Error's) is a refusal of a collective the
// group cannot run: a backend's "does not support", or, on libtorch 2.x, a
// ProcessGroup that has no backend for the tensors' device.
bool isUnsupportedCollectiveMessage(const std::string& message);

}  // namespace distalgo::quantization
