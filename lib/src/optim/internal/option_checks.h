#pragma once

// Option and argument checks shared by the functional optimizers; each
// throws std::invalid_argument naming the optimizer, the option, what was
// expected and what was found.

#include <ATen/core/Tensor.h>

namespace distalgo::optim::internal {

// `value` >= 0 (NaN fails).
void requireNonNegative(const char* optimizer, const char* option,
                        double value);
// 0 <= `value` < 1.
void requireBeta(const char* optimizer, const char* option, double value);
// Whether stepParam has work to do: false for an undefined `grad`; throws
// for a sparse `grad` or one shaped unlike `param`.
bool checkGradient(const char* optimizer, const at::Tensor& param,
                   const at::Tensor& grad);

}  // namespace distalgo::optim::internal
