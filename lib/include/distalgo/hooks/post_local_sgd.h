#pragma once

// PyTorch's post_localSGD_hook: plain DDP (global gradient allreduce) for
// the first start_local_sgd_iter iterations, then local SGD: gradients are
// averaged within the subgroup only (or not at all), and a model averager
// run after the optimizer step keeps the ranks' models close.
//
// Example:
//   auto state = std::make_shared<PostLocalSgdState>(
//       PostLocalSgdOptions{.start_local_sgd_iter = 100});
//   ddp.registerCommHook(postLocalSgdHook(state, pg, store));
//   averaging::PeriodicModelAverager averager(pg, /*period=*/4,
//                                             /*warmup_steps=*/100);
//   for (...) {
//     /* forward, backward */ optimizer.step();
//     averager.averageParameters(optimizer.param_groups());
//   }

#include <memory>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include "distalgo/ddp/comm_hook.h"
#include "distalgo/hooks/post_local_sgd_state.h"

namespace distalgo::hooks {

// While state->iteration() < start_local_sgd_iter: averages each bucket over
// `pg` (allreduceHook) and counts the iteration at its last bucket. Then:
// averages it over state's subgroup of `pg`, created at the first local
// bucket from `store` (collective over `pg`, as every rank reaches that
// bucket together), or, without post_local_gradient_allreduce, leaves it as
// it is. Throws std::invalid_argument for a null state or `pg`, or a null
// `store` when the subgroup is still to be created.
ddp::CommHook postLocalSgdHook(std::shared_ptr<PostLocalSgdState> state,
                               c10::intrusive_ptr<c10d::ProcessGroup> pg,
                               c10::intrusive_ptr<c10d::Store> store = {});

}  // namespace distalgo::hooks
