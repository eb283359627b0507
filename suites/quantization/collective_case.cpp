#include "collective_case.h"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/util/Exception.h>

#include <cmath>
#include <string>

#include "distalgo/quantization/unsupported_collective.h"

namespace quantcase {

at::Tensor rankData(int rank, int salt, at::IntArrayRef sizes) {
  at::Generator generator = at::detail::createCPUGenerator(
      (std::uint64_t{1000} * static_cast<std::uint64_t>(salt)) +
      static_cast<std::uint64_t>(rank) + 1);
  const at::Tensor scale =
      at::exp2(at::randint(-8, 9, sizes, generator, at::kFloat));
  return at::randn(sizes, generator) * scale;
}

at::Tensor moveBound(const at::Tensor& exact, DQuantType qtype) {
  if (qtype == DQuantType::BFP16) return exact.abs() * std::ldexp(1.0, -8);
  return exact.abs() * std::ldexp(1.0, -11) + std::ldexp(1.0, -25);
}

at::Tensor sumBound(const at::Tensor& magnitude, int world, DQuantType qtype) {
  const int bits = qtype == DQuantType::BFP16 ? 8 : 11;
  // FP16: each rank's value may also be a subnormal half.
  const double floor =
      qtype == DQuantType::FP16 ? world * std::ldexp(1.0, -25) : 0.0;
  return magnitude * (world * std::ldexp(1.0, -bits)) + floor;
}

void orSkip(const std::function<void()>& body) {
  try {
    body();
  } catch (const distalgo::quantization::UnsupportedCollective& error) {
    ranktest::skipRank(ranktest::SkipCode::kBackendUnavailable, error.what());
  } catch (const c10::Error& error) {
    // The exact collective, straight from the backend.
    const std::string message = error.what_without_backtrace();
    if (!distalgo::quantization::isUnsupportedCollectiveMessage(message)) {
      throw;
    }
    ranktest::skipRank(ranktest::SkipCode::kBackendUnavailable, message);
  }
}

}  // namespace quantcase
