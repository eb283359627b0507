#pragma once

// The hooks bench_ddp_step times, one row each. Adding a hook to the
// benchmark is adding one row to hookRows() in hooks.cpp (and, for the
// PyTorch column, one entry under the same name in HOOKS of
// bench/ddp_step.py).

#include <functional>
#include <string>
#include <vector>

#include "bench_common/models.h"

namespace ddp_step {

using bench_common::Ddp;
using bench_common::Group;

struct HookRow {
  // The name in the report and the key of the PyTorch side's table.
  std::string name;
  // Registers the hook on a freshly built DDP, before its first forward;
  // `group` is the one DDP reduces over. Empty: DDP as it is (no hook).
  std::function<void(Ddp& ddp, const Group& group)> install;
};

// In report order.
const std::vector<HookRow>& hookRows();
// Nothing for an unknown name.
const HookRow* findHook(const std::string& name);

}  // namespace ddp_step
