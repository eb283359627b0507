#include "distalgo/quantization/unsupported_collective.h"

namespace distalgo::quantization {

bool isUnsupportedCollectiveMessage(const std::string& message) {
  return message.find("does not support") != std::string::npos ||
         message.find("No backend type associated with device type") !=
             std::string::npos;
}

}  // namespace distalgo::quantization
