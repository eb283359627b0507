#pragma once

// What the PowerSGD hooks put into allreduce, from the parameter shapes: the
// prediction of their rows in the hook table.

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "distalgo/hooks/powersgd_state.h"
#include "hookparity/hook_parity.h"

namespace hooktest {

// Elements one compressed step of the layer-wise hook allreduces: the
// uncompressed gradients, then P (sum of n * r'), then Q (sum of m * r').
inline std::int64_t layerwiseElementsPerStep(
    const std::vector<at::Tensor>& parameters,
    const distalgo::hooks::PowerSgdOptions& options) {
  std::int64_t elements = 0;
  for (const at::Tensor& p : parameters) {
    const std::int64_t n = p.size(0), m = p.numel() / n;
    const std::int64_t r =
        std::min<std::int64_t>({n, m, options.matrix_approximation_rank});
    const bool compress = (n + m) * r * options.min_compression_rate < n * m;
    elements += compress ? (n + m) * r : n * m;
  }
  return elements;
}

// Elements one compressed step of the batched hook allreduces: P and Q, each
// side x r for the bucket padded to a side x side square.
inline std::int64_t batchedElementsPerStep(
    const std::vector<at::Tensor>& parameters,
    const distalgo::hooks::PowerSgdOptions& options) {
  const std::int64_t length = hookparity::numelOf(parameters);
  const auto side = static_cast<std::int64_t>(
      std::ceil(std::sqrt(static_cast<double>(length))));
  return 2 * side * options.matrix_approximation_rank;
}

// Plain allreduce (as reference DDP) before the start iteration, then the
// compressed steps. The model must fit one bucket (the fixture MLP does).
inline hookparity::Bytes powerSgdTraffic(
    const hookparity::TrafficContext& c,
    const distalgo::hooks::PowerSgdOptions& options, bool batched) {
  const std::int64_t plain_steps =
      std::min<std::int64_t>(options.start_iteration, c.steps);
  const std::int64_t compressed_steps = c.steps - plain_steps;
  const std::int64_t per_step =
      batched ? batchedElementsPerStep(c.parameters, options)
              : layerwiseElementsPerStep(c.parameters, options);
  const std::int64_t element_size = c.parameters.front().element_size();
  return {{"allreduce", c.reference_bytes / c.steps * plain_steps +
                            compressed_steps * per_step * element_size}};
}

}  // namespace hooktest
