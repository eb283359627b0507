#include "distalgo/join/join.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>

#include "internal/check.h"

namespace distalgo::join {
namespace {

constexpr const char* kJoin = "distalgo::join::Join: ";

// PyTorch warns once the other ranks are this many iterations ahead.
constexpr int kSkewWarningRounds = 1000;

c10::intrusive_ptr<c10d::Work> allreduceAsync(
    const c10::intrusive_ptr<c10d::ProcessGroup>& pg, at::Tensor tensor) {
  std::vector<at::Tensor> tensors{std::move(tensor)};
  return pg->allreduce(tensors);
}

// The heartbeat's work as the reducer (and any caller) sees it: its result
// is the number of ranks still training, without the step flags.
class HeartbeatWork : public c10d::Work {
 public:
  HeartbeatWork(c10::intrusive_ptr<c10d::Work> inner, at::Tensor heartbeat)
      : inner_(std::move(inner)), heartbeat_(std::move(heartbeat)) {}
  bool wait(std::chrono::milliseconds timeout) override {
    return inner_->wait(timeout);
  }
  bool isCompleted() override { return inner_->isCompleted(); }
  bool isSuccess() const override { return inner_->isSuccess(); }
  std::exception_ptr exception() const override { return inner_->exception(); }
  std::vector<at::Tensor> result() override { return {count()}; }
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override {
    return inner_->getFuture()->then(
        [count = count()](c10::ivalue::Future& done) {
          if (done.hasError()) done.value();  // rethrows the collective's error
          return c10::IValue(std::vector<at::Tensor>{count});
        },
        c10::ListType::ofTensors());
  }

 private:
  at::Tensor count() const { return heartbeat_.narrow(0, 0, 1); }

  c10::intrusive_ptr<c10d::Work> inner_;
  at::Tensor heartbeat_;
};

std::string joinedNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names)
    out += (out.empty() ? "'" : ", '") + name + "'";
  return out;
}

}  // namespace

Join::Join(std::vector<Joinable*> joinables, JoinOptions options,
           const JoinArgs& args)
    : joinables_(std::move(joinables)),
      options_(options),
      device_(c10::kCPU),
      uncaught_at_start_(std::uncaught_exceptions()) {
  DISTALGO_CHECK_ARG(!joinables_.empty(),
                     "distalgo::join::Join needs at least one joinable");
  pg_ = joinables_.front()->joinProcessGroup();
  device_ = joinables_.front()->joinDevice();
  for (std::size_t i = 1; i < joinables_.size(); ++i) {
    DISTALGO_CHECK_ARG(joinables_[i]->joinProcessGroup() == pg_, kJoin,
                       "joinable ", i,
                       " uses another process group than joinable 0; all must "
                       "share one");
    const c10::Device device = joinables_[i]->joinDevice();
    DISTALGO_CHECK_ARG(device == device_, kJoin, "joinable ", i, " is on ",
                       device, ", joinable 0 on ", device_,
                       "; all must share one device");
  }
  // After the checks, whose messages count in list order.
  std::stable_sort(joinables_.begin(), joinables_.end(),
                   [](const Joinable* a, const Joinable* b) {
                     return a->joinStage() < b->joinStage();
                   });
  for (Joinable* joinable : joinables_) {
    hooks_.push_back(joinable->joinHook(args));
  }
  const auto unread = args.unread();
  DISTALGO_CHECK_ARG(unread.empty(), kJoin,
                     "no joinable reads the argument(s) ", joinedNames(unread));
  for (std::size_t i = 0; i < joinables_.size(); ++i) {
    joinables_[i]->join_config_ = {options_.enable,
                                   options_.throw_on_early_termination,
                                   /*is_first_joinable=*/i == 0};
  }
}

Join::~Join() {
  if (!finished_ && std::uncaught_exceptions() == uncaught_at_start_ &&
      options_.enable) {
    // Not an exception: finish() was forgotten, and ranks still training
    // will wait for this one's heartbeat until their timeout.
    std::cerr << "distalgo::join::Join destroyed without finish(): ranks "
                 "that still train will wait for this rank"
              << std::endl;
  }
  resetConfigs();
}

void Join::resetConfigs() {
  // Unlike PyTorch, which keeps them, so that code after the Join sends no
  // heartbeats; every rank leaves the Join together, so all stop alike.
  for (Joinable* joinable : joinables_) {
    joinable->join_config_ = {};
    joinable->joined_ = false;
    joinable->round_step_flags_ = 0;
  }
}

at::Tensor Join::allreduceHeartbeatShaped(float value) {
  at::Tensor t = at::full({2}, value, at::TensorOptions().device(device_));
  allreduceAsync(pg_, t)->wait();
  return t;
}

void Join::finish() {
  finished_ = true;
  if (!options_.enable) {
    resetConfigs();
    return;
  }
  for (Joinable* joinable : joinables_) joinable->joined_ = true;
  bool is_last_joiner = true;
  for (int round = 1;; ++round) {
    // Each rank still training answers with its heartbeat {1, step flag}.
    const at::Tensor heartbeats = allreduceHeartbeatShaped(0);
    if (heartbeats[0].item<float>() == 0) break;
    if (options_.throw_on_early_termination) {
      // Matches the check the training ranks run after their heartbeat.
      allreduceHeartbeatShaped(1);
      resetConfigs();
      // PyTorch's error and words for throw_on_early_termination: what the
      // ranks found together, not a check of this call.
      throw std::runtime_error("Rank " + std::to_string(pg_->getRank()) +
                               " exhausted all inputs.");
    }
    for (Joinable* joinable : joinables_) {
      joinable->round_step_flags_ =
          static_cast<int>(heartbeats[1].item<float>());
    }
    for (auto& hook : hooks_) hook->mainHook();
    is_last_joiner = false;
    if (round == kSkewWarningRounds) {
      std::cerr << "distalgo::join::Join: rank " << pg_->getRank()
                << " has shadowed " << kSkewWarningRounds
                << " iterations of other ranks; inputs are very uneven"
                << std::endl;
    }
  }
  for (auto& hook : hooks_) hook->postHook(is_last_joiner);
  resetConfigs();
}

c10::intrusive_ptr<c10d::Work> Join::notifyJoinContext(Joinable& joinable,
                                                       bool step_flag) {
  const JoinConfig& config = joinable.join_config_;
  if (!config.is_first_joinable || !config.enable || joinable.joined_) {
    return {};
  }
  const auto pg = joinable.joinProcessGroup();
  const auto options = at::TensorOptions().device(joinable.joinDevice());
  at::Tensor heartbeat = at::ones({2}, options);
  if (!step_flag) heartbeat[1].fill_(0);
  auto work = c10::make_intrusive<HeartbeatWork>(allreduceAsync(pg, heartbeat),
                                                 heartbeat);
  if (config.throw_on_early_termination) {
    at::Tensor joined = at::zeros({2}, options);
    allreduceAsync(pg, joined)->wait();
    if (joined[0].item<float>() != 0) {
      // PyTorch's error and words, as in finish().
      throw std::runtime_error(
          "Detected at least one rank that exhausted inputs. Throwing across "
          "all ranks.");
    }
  }
  return work;
}

}  // namespace distalgo::join
