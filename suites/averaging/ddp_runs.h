#pragma once

// The post-local SGD tests' runs under DDP: fixtures::trainUnderDdp's
// settings for their model on this rank's batches.

#include <utility>

#include "distalgo/ddp/comm_hook.h"
#include "fixtures/bucketed_models.h"
#include "fixtures/ddp_training.h"

namespace averaging_suite {

// `model` (seed 1 on every rank, at its bucket caps) on this rank's batches
// of 6 rows, with `hook` in place of DDP's allreduce if given; the caller
// sets the steps and the optimizer.
inline fixtures::DdpTraining ddpTraining(
    int rank, distalgo::ddp::CommHook hook = {},
    const fixtures::BucketedModel& model = fixtures::oneBucketMlp()) {
  fixtures::DdpTraining training = fixtures::ddpTrainingOf(model);
  training.hook = std::move(hook);
  training.rank = rank;
  training.rows = 6;
  return training;
}

}  // namespace averaging_suite
