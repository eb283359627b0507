#pragma once

// Options of the functional Adam and AdamW: PyTorch's names and defaults,
// which differ only in the weight decay's default (AdamW 1e-2, Adam 0).

#include <utility>

namespace distalgo::optim {

// The defaults that differ. (A type, not a double template argument, which
// clang before 18 cannot parse.)
struct AdamDefaults {
  static constexpr double kWeightDecay = 0;
};
struct AdamWDefaults {
  static constexpr double kWeightDecay = 1e-2;
};

template <typename Defaults>
struct BasicAdamOptions {
  double lr = 1e-3;
  // Decay rates of the running averages of the gradient and its square.
  std::pair<double, double> betas = {0.9, 0.999};
  // Added to the denominator for numerical stability.
  double eps = 1e-8;
  // Adam: L2 penalty added to the gradient; AdamW: decoupled decay of the
  // parameter by lr * weight_decay before the update.
  double weight_decay = Defaults::kWeightDecay;
  // Normalize by the running maximum of the squared-gradient average.
  bool amsgrad = false;
  // Ascend the gradient instead (steps with its negation).
  bool maximize = false;
};

using AdamOptions = BasicAdamOptions<AdamDefaults>;
using AdamWOptions = BasicAdamOptions<AdamWDefaults>;

}  // namespace distalgo::optim
