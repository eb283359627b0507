#pragma once

// A class whose per-iteration collectives Join can shadow on ranks that ran
// out of inputs (DDP, ZeRO, user classes such as the tutorial's Counter).

#include <c10/core/Device.h>

#include <memory>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distalgo/join/join_args.h"
#include "distalgo/join/join_hook.h"

namespace distalgo::join {

// Where in a training iteration a joinable issues its collectives (and
// notifies the Join, just before them). Join orders its joinables by it, list
// order within ties: the earliest sends the heartbeat, which must be the
// first collective of a training rank's iteration, and the main hooks run in
// that order, the order in which training ranks issue the collectives they
// shadow. So DDP (forward) and ZeRO (optimizer step) work in either list
// order, and ZeRO alone too.
enum class IterationStage { kForward = 0, kBackward = 1, kOptimizerStep = 2 };

// How the Join around a joinable configured it; all false outside a Join.
struct JoinConfig {
  bool enable = false;
  bool throw_on_early_termination = false;
  // Only the first joinable of a Join (by stage, then list order) sends the
  // "still training" heartbeat.
  bool is_first_joinable = false;
};

class Joinable {
 public:
  virtual ~Joinable() = default;

  // The hook that shadows this joinable's collectives; reads its own keys
  // from `args`.
  virtual std::unique_ptr<JoinHook> joinHook(const JoinArgs& args) = 0;
  // Where the Join's own collectives (heartbeat, counts) allocate tensors.
  virtual c10::Device joinDevice() const = 0;
  // The group the joinable's collectives run on.
  virtual c10::intrusive_ptr<c10d::ProcessGroup> joinProcessGroup() const = 0;
  // Where this joinable's collectives run in an iteration (see
  // IterationStage); the default suits one that acts in or before forward.
  virtual IterationStage joinStage() const { return IterationStage::kForward; }

  const JoinConfig& joinConfig() const { return join_config_; }
  // In a main hook: how many training ranks passed step_flag = true to
  // Join::notifyJoinContext in the iteration being shadowed.
  int roundStepFlags() const { return round_step_flags_; }

 private:
  friend class Join;
  JoinConfig join_config_;
  // True while this rank runs the join hooks: a hook may call code that
  // notifies (ZeRO's step does), which must then not send a heartbeat.
  bool joined_ = false;
  int round_step_flags_ = 0;
};

}  // namespace distalgo::join
