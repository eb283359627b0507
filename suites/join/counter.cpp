#include "counter.h"

namespace join_suite {
namespace {

void allreduce(const c10::intrusive_ptr<c10d::ProcessGroup>& pg, at::Tensor t,
               const c10d::ReduceOp& op = c10d::ReduceOp::SUM) {
  std::vector<at::Tensor> tensors{std::move(t)};
  pg->allreduce(tensors, c10d::AllreduceOptions{op})->wait();
}

}  // namespace

class CounterJoinHook : public distalgo::join::JoinHook {
 public:
  CounterJoinHook(Counter& counter, bool sync_max_count)
      : counter_(counter), sync_max_count_(sync_max_count) {}

  // Shadows the counter's allreduce with a zero: this rank adds nothing.
  void mainHook() override {
    allreduce(counter_.pg_, at::zeros({1}, counter_.device_));
  }

  void postHook(bool is_last_joiner) override {
    if (!sync_max_count_) return;
    const int common_rank = counter_.findCommonRank(is_last_joiner);
    if (counter_.pg_->getRank() == common_rank) {
      counter_.max_count_.copy_(counter_.count_);
    }
    std::vector<at::Tensor> tensors{counter_.max_count_};
    counter_.pg_->broadcast(tensors, c10d::BroadcastOptions{common_rank})
        ->wait();
  }

 private:
  Counter& counter_;
  bool sync_max_count_;
};

Counter::Counter(c10::Device device, c10::intrusive_ptr<c10d::ProcessGroup> pg)
    : device_(device),
      pg_(std::move(pg)),
      count_(at::zeros({1}, device)),
      max_count_(at::zeros({1}, device)) {}

void Counter::operator()() {
  // Waited on below: no heartbeat may still be in flight when a rank leaves.
  auto heartbeat = distalgo::join::Join::notifyJoinContext(*this);
  at::Tensor one = at::ones({1}, device_);
  allreduce(pg_, one);
  count_ += one;
  if (heartbeat) heartbeat->wait();
}

std::unique_ptr<distalgo::join::JoinHook> Counter::joinHook(
    const distalgo::join::JoinArgs& args) {
  return std::make_unique<CounterJoinHook>(*this, args.get(kSyncMaxCount));
}

int Counter::findCommonRank(bool consider) {
  at::Tensor rank =
      at::full({1}, consider ? pg_->getRank() : -1,
               at::TensorOptions().device(device_).dtype(at::kLong));
  allreduce(pg_, rank, c10d::ReduceOp::MAX);
  return static_cast<int>(rank.item<int64_t>());
}

}  // namespace join_suite
