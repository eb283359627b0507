#pragma once

// A test joinable (after PyTorch's test_join.py): each input runs
// `num_allreduces` allreduces of one; its hook shadows them with zeros and
// logs every hook call, so tests can check totals and the order of hooks.

#include <ATen/ATen.h>

#include <memory>
#include <string>
#include <vector>

#include "distalgo/join/join.h"

namespace join_suite {

inline constexpr distalgo::join::JoinArg<int> kNumAllreduces{"num_allreduces",
                                                             1};

class AllReducer : public distalgo::join::Joinable {
 public:
  AllReducer(std::string name, c10::intrusive_ptr<c10d::ProcessGroup> pg,
             std::vector<std::string>* log = nullptr)
      : name_(std::move(name)), pg_(std::move(pg)), log_(log) {}

  // One input; returns the sum of the allreduced ones (ranks training).
  double operator()(int num_allreduces = 1);

  std::unique_ptr<distalgo::join::JoinHook> joinHook(
      const distalgo::join::JoinArgs& args) override;
  c10::Device joinDevice() const override { return c10::kCPU; }
  c10::intrusive_ptr<c10d::ProcessGroup> joinProcessGroup() const override {
    return pg_;
  }

  const std::string& name() const { return name_; }
  void log(const std::string& event) {
    if (log_ != nullptr) log_->push_back(name_ + " " + event);
  }
  void allreduce(float value);

 private:
  std::string name_;
  c10::intrusive_ptr<c10d::ProcessGroup> pg_;
  std::vector<std::string>* log_;
  double total_ = 0;
};

}  // namespace join_suite
