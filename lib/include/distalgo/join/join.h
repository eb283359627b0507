#pragma once

// Training on uneven inputs: ranks that run out of inputs keep shadowing the
// collectives of the ranks that still train, until every rank is done.
//
// Example:
//   distalgo::join::Join join({&ddp}, {.throw_on_early_termination = false});
//   for (const auto& batch : my_batches) { ... ddp.forward(...) ... }
//   join.finish();  // the join loop, after this rank's last input
// or, equivalently, with the loop in a callable:
//   distalgo::join::Join::run({&ddp}, {}, {}, [&] { ...training loop... });
//
// Several joinables: Join orders them by Joinable::joinStage(), list order
// within ties. The first in that order sends the heartbeat, and a joined rank
// runs the main hooks in that order, so the shadow collectives line up with
// a training rank's iteration whatever the list order: Join({&zero, &ddp})
// runs DDP's hook (forward, backward) before ZeRO's (optimizer step), and
// DDP's forward carries the heartbeat. ZeRO alone sends it from step().

#include <c10/core/Device.h>

#include <memory>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <vector>

#include "distalgo/join/join_args.h"
#include "distalgo/join/join_hook.h"
#include "distalgo/join/joinable.h"

namespace distalgo::join {

struct JoinOptions {
  // false: no heartbeat and no join loop (inputs must be even).
  bool enable = true;
  // Instead of shadowing, every rank throws as soon as one runs out.
  bool throw_on_early_termination = false;
};

class Join {
 public:
  // Orders the joinables by stage, configures them (the first in that
  // order sends the heartbeat) and builds
  // their hooks with `args`. Throws std::invalid_argument for no joinables,
  // joinables on different process groups or devices, and for an argument
  // that no joinable reads. The joinables must outlive the Join.
  Join(std::vector<Joinable*> joinables, JoinOptions options = {},
       const JoinArgs& args = {});
  // Does not run the join loop (it communicates and may throw): a Join left
  // by an exception just resets its joinables' configs.
  ~Join();
  Join(const Join&) = delete;
  Join& operator=(const Join&) = delete;

  // After this rank's last input: shadows the other ranks' iterations until
  // every rank has joined, then runs the post hooks. With
  // throw_on_early_termination, throws std::runtime_error instead.
  void finish();

  // Runs `training_loop` inside a Join and then finish(); an exception from
  // the loop propagates without the join loop.
  template <typename Loop>
  static void run(std::vector<Joinable*> joinables, JoinOptions options,
                  const JoinArgs& args, Loop&& training_loop) {
    Join join(std::move(joinables), options, args);
    training_loop();
    join.finish();
  }

  // Called by a joinable before its per-iteration collectives. The first
  // enabled joinable (by stage) sends the heartbeat (an async allreduce) and
  // gets its work, whose result() is the number of ranks still training; others
  // get none (an empty pointer). `step_flag` rides along in the same allreduce:
  // joined ranks' hooks read how many training ranks set it this round
  // (Joinable::roundStepFlags), so the first joinable needs no collective of
  // its own to tell them (DDP: whether this step's backward reduces). With
  // throw_on_early_termination it also throws on every rank once any rank
  // has joined.
  static c10::intrusive_ptr<c10d::Work> notifyJoinContext(
      Joinable& joinable, bool step_flag = true);

 private:
  // Allreduces {value, value}, the shape of a heartbeat, and returns it.
  at::Tensor allreduceHeartbeatShaped(float value);
  void resetConfigs();

  std::vector<Joinable*> joinables_;  // by stage, then list order
  std::vector<std::unique_ptr<JoinHook>> hooks_;
  JoinOptions options_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  c10::Device device_;
  bool finished_ = false;
  int uncaught_at_start_;
};

}  // namespace distalgo::join
