#pragma once

// The join tutorial's toy Joinable: each call counts the ranks still
// training (an allreduce of one); its hook shadows that allreduce with a zero
// and, with sync_max_count, gives every rank the last joiner's count.

#include <ATen/ATen.h>

#include <memory>

#include "distalgo/join/join.h"

namespace join_suite {

inline constexpr distalgo::join::JoinArg<bool> kSyncMaxCount{"sync_max_count",
                                                             false};

class Counter : public distalgo::join::Joinable {
 public:
  Counter(c10::Device device, c10::intrusive_ptr<c10d::ProcessGroup> pg);

  // One input: adds the number of ranks still training to count().
  void operator()();

  double count() const { return count_.item<double>(); }
  double maxCount() const { return max_count_.item<double>(); }

  std::unique_ptr<distalgo::join::JoinHook> joinHook(
      const distalgo::join::JoinArgs& args) override;
  c10::Device joinDevice() const override { return device_; }
  c10::intrusive_ptr<c10d::ProcessGroup> joinProcessGroup() const override {
    return pg_;
  }

 private:
  friend class CounterJoinHook;
  // The largest rank among those for which `consider` holds.
  int findCommonRank(bool consider);

  c10::Device device_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  at::Tensor count_;
  at::Tensor max_count_;
};

}  // namespace join_suite
