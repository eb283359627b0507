#include "distalgo/optim/internal/option_checks.h"

#include <sstream>
#include <stdexcept>
#include <string>

namespace distalgo::optim::internal {
namespace {

[[noreturn]] void fail(const char* optimizer, const std::string& message) {
  throw std::invalid_argument(std::string("distalgo::optim::") + optimizer +
                              ": " + message);
}

std::string str(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

}  // namespace

void requireNonNegative(const char* optimizer, const char* option,
                        double value) {
  if (!(value >= 0)) {
    fail(optimizer, std::string("invalid ") + option + " " + str(value) +
                        ", expected >= 0");
  }
}

void requireBeta(const char* optimizer, const char* option, double value) {
  if (!(value >= 0 && value < 1)) {
    fail(optimizer, std::string("invalid ") + option + " " + str(value) +
                        ", expected in [0, 1)");
  }
}

bool checkGradient(const char* optimizer, const at::Tensor& param,
                   const at::Tensor& grad) {
  if (!grad.defined()) return false;
  if (!param.defined()) fail(optimizer, "the parameter is undefined");
  if (grad.is_sparse()) fail(optimizer, "sparse gradients are not supported");
  if (grad.sizes() != param.sizes()) {
    std::ostringstream sizes;
    sizes << "the gradient's shape " << grad.sizes()
          << " differs from the parameter's " << param.sizes();
    fail(optimizer, sizes.str());
  }
  return true;
}

}  // namespace distalgo::optim::internal
