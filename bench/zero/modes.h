#pragma once

// The rows of bench_zero: ways to run Adam beside distalgo's DDP, each a
// DDP of the same model plus what steps its parameters after backward.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_common/models.h"

namespace zero_bench {

// One rank's DDP and optimizer in one mode.
struct Runner {
  Runner(const bench_common::ModelRow& model, const bench_common::Group& group,
         const distalgo::ddp::DdpOptions& options)
      : ddp(model.make(bench_common::kModelSeed), group, options) {}

  bench_common::Ddp ddp;
  std::function<void()> step;  // after backward; may do nothing
  // The bytes of this rank's optimizer state (optimizerStateBytes).
  std::function<std::int64_t()> state_bytes;
};

struct ModeRow {
  std::string name;         // in the samples and the report
  std::string description;  // for the report
  // Builds the rank's runner. Collective over `group`.
  std::function<std::unique_ptr<Runner>(const bench_common::ModelRow&,
                                        const bench_common::Group&,
                                        const distalgo::ddp::DdpOptions&)>
      make;
};

// The modes in the report's order; the first is the baseline.
const std::vector<ModeRow>& modeRows();
// Nothing for an unknown name.
const ModeRow* findMode(const std::string& name);

// The learning rate of every mode's Adam.
inline constexpr double kLearningRate = 1e-3;

}  // namespace zero_bench
