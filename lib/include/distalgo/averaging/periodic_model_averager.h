#pragma once

// PyTorch's PeriodicModelAverager: local SGD's global model averaging every
// `period` steps once `warmup_steps` have passed.

#include <cstdint>

#include "distalgo/averaging/model_averager.h"

namespace distalgo::averaging {

// Averages over `pg` at steps warmup_steps, warmup_steps + period, ... and at
// no other step. During warm-up the post-local SGD hook averages gradients
// instead, so warmup_steps should equal its start_localSGD_iter.
//
// A period of 1 is allowed but pointless (PyTorch warns): allreducing the
// parameters every step costs at least as much as DDP's gradient allreduce,
// so use DDP alone.
//
// Example:
//   PeriodicModelAverager averager(pg, /*period=*/4, /*warmup_steps=*/100);
//   for (...) { ...; optimizer.step(); averager.averageParameters(params); }
class PeriodicModelAverager : public ModelAverager {
 public:
  // Throws std::invalid_argument if period < 1 or warmup_steps < 0.
  PeriodicModelAverager(c10::intrusive_ptr<c10d::ProcessGroup> pg, int period,
                        std::int64_t warmup_steps = 0);

  int period() const { return period_; }
  std::int64_t warmupSteps() const { return warmup_steps_; }

 protected:
  c10::intrusive_ptr<c10d::ProcessGroup> groupAt(
      std::int64_t step) const override;

 private:
  int period_;
  std::int64_t warmup_steps_;
};

}  // namespace distalgo::averaging
