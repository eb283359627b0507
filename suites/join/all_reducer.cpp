#include "all_reducer.h"

namespace join_suite {
namespace {

class AllReducerJoinHook : public distalgo::join::JoinHook {
 public:
  AllReducerJoinHook(AllReducer& owner, int num_allreduces)
      : owner_(owner), num_allreduces_(num_allreduces) {}

  void mainHook() override {
    owner_.log("main");
    for (int i = 0; i < num_allreduces_; ++i) owner_.allreduce(0);
  }
  void postHook(bool is_last_joiner) override {
    owner_.log(is_last_joiner ? "post last" : "post");
  }

 private:
  AllReducer& owner_;
  int num_allreduces_;
};

}  // namespace

void AllReducer::allreduce(float value) {
  std::vector<at::Tensor> t{at::full({1}, value)};
  pg_->allreduce(t)->wait();
  total_ += t[0].item<double>();
}

double AllReducer::operator()(int num_allreduces) {
  // Waited on below: no heartbeat may still be in flight when a rank leaves.
  auto heartbeat = distalgo::join::Join::notifyJoinContext(*this);
  const double before = total_;
  for (int i = 0; i < num_allreduces; ++i) allreduce(1);
  if (heartbeat) heartbeat->wait();
  return total_ - before;
}

std::unique_ptr<distalgo::join::JoinHook> AllReducer::joinHook(
    const distalgo::join::JoinArgs& args) {
  return std::make_unique<AllReducerJoinHook>(*this, args.get(kNumAllreduces));
}

}  // namespace join_suite
