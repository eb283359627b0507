#include "distalgo/averaging/periodic_model_averager.h"

#include <utility>

#include "internal/check.h"

namespace distalgo::averaging {

PeriodicModelAverager::PeriodicModelAverager(
    c10::intrusive_ptr<c10d::ProcessGroup> pg, int period,
    std::int64_t warmup_steps)
    : ModelAverager(std::move(pg)),
      period_(period),
      warmup_steps_(warmup_steps) {
  DISTALGO_CHECK_ARG(warmup_steps >= 0,
                     "distalgo::averaging::PeriodicModelAverager: expected "
                     "warmup_steps >= 0, got ",
                     warmup_steps);
  DISTALGO_CHECK_ARG(period >= 1,
                     "distalgo::averaging::PeriodicModelAverager: expected "
                     "period >= 1, got ",
                     period);
}

c10::intrusive_ptr<c10d::ProcessGroup> PeriodicModelAverager::groupAt(
    std::int64_t step) const {
  // Counted from the end of warm-up, as PyTorch does.
  const bool due =
      step >= warmup_steps_ && (step - warmup_steps_) % period_ == 0;
  if (due) return processGroup();
  return {};
}

}  // namespace distalgo::averaging
