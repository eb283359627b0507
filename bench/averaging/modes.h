#pragma once

// The rows of bench_averaging: DDP + SGD against post-local SGD (period 4)
// and against SGD stepped inside the communication hook. Each mode has its
// own DDP of the same model over a byte-counting view of the rank's group.

#include <ranktest/counting_process_group.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench_common/models.h"

namespace averaging_bench {

// One rank's DDP and optimizer in one mode.
struct Runner {
  Runner(const bench_common::ModelRow& model, const bench_common::Group& group,
         const distalgo::ddp::DdpOptions& options)
      : counting(c10::make_intrusive<ranktest::CountingProcessGroup>(group)),
        ddp(model.make(bench_common::kModelSeed), counting, options) {}

  // What this mode's DDP, hook and averager send, all collectives together.
  c10::intrusive_ptr<ranktest::CountingProcessGroup> counting;
  bench_common::Ddp ddp;
  std::function<void()> step;  // after backward; may do nothing
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

// Every mode's SGD (libtorch's or the functional one) and the averaging
// period of the post-local SGD modes.
inline constexpr double kLearningRate = 1e-2;
inline constexpr int kPeriod = 4;

}  // namespace averaging_bench
