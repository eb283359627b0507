#pragma once

// The quantized-collectives suite: one row per collective and quantization
// type; every row runs the exact float32 collective and the quantized one on
// the same data, and two bodies compare their results and their bytes.

#include <ATen/ATen.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "distalgo/quantization/dquant_type.h"
#include "ranktest/ranktest.h"

namespace quantcase {

using distalgo::quantization::DQuantType;
using Group = c10::intrusive_ptr<c10d::ProcessGroup>;
// Bytes this rank puts into each collective, by CountingProcessGroup's name.
using Bytes = std::map<std::string, std::int64_t>;

struct CollectiveCase {
  std::string name;
  DQuantType qtype = DQuantType::FP16;
  // Runs the collective over `pg` on the row's data for this rank: in
  // float32 when `qtype` is empty, else quantized. Returns this rank's
  // outputs.
  std::function<std::vector<at::Tensor>(const Group& pg,
                                        std::optional<DQuantType> qtype)>
      run;
  // Sums (all_reduce): for each output, sum over the ranks of |input|, which
  // scales the error bound. Empty for collectives that only move values.
  std::function<std::vector<at::Tensor>(int world_size)> magnitudes;
  // What the quantized run puts on the wire on this rank (collectives.h).
  std::function<Bytes(const Group& pg)> quantized_bytes;
};

// Deterministic data of rank `rank`: normal values times 2^-8..2^8, so that
// both codecs see many exponents; `salt` tells a row's tensors apart.
at::Tensor rankData(int rank, int salt, at::IntArrayRef sizes);

// Elementwise error bound of a value moved through `qtype` (codec.h).
at::Tensor moveBound(const at::Tensor& exact, DQuantType qtype);
// Elementwise error bound of a quantized sum over `world` ranks whose
// magnitudes sum to `magnitude` (collectives.h).
at::Tensor sumBound(const at::Tensor& magnitude, int world, DQuantType qtype);

// Runs `body`; a backend lacking a collective skips this rank with the
// backend-unavailable code and the error's message.
void orSkip(const std::function<void()>& body);

class QuantizationCollectives
    : public ranktest::DistributedTestWithParam<CollectiveCase> {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}, .reuse_processes = true};
  }
  static std::string paramName(const CollectiveCase& row, std::size_t) {
    return row.name;
  }
};

}  // namespace quantcase
