#pragma once

// What bench_quantization times: each collective of
// distalgo/quantization/collectives.h, exact (float32 through c10d) and
// quantized, on tensors allocated once per cell.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

#include "distalgo/quantization/dquant_type.h"

namespace quant_bench {

using Group = c10::intrusive_ptr<c10d::ProcessGroup>;
using distalgo::quantization::DQuantType;

// One call of a collective in one mode, its tensors living in the
// closures: `reset` (untimed, may be empty) restores the inputs that `run`
// overwrites.
struct Call {
  std::function<void()> run;
  std::function<void()> reset;
};

struct CollectiveRow {
  std::string name;  // all_gather, all_to_all, ...
  // The call over `pg` with `numel` float32 elements going in on each rank
  // (all of a rank's inputs together); exact when `qtype` is empty.
  std::function<Call(const Group& pg, std::int64_t numel,
                     std::optional<DQuantType> qtype)>
      make;
};

const std::vector<CollectiveRow>& collectiveRows();

// A mode's name: "exact", "fp16" or "bfp16".
std::string modeName(std::optional<DQuantType> qtype);

}  // namespace quant_bench
