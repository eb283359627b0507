// A user of the installed package: their own communication hook on
// distalgo's DDP, checked against plain DDP, as a distributed test.

#include <ATen/ATen.h>
#include <torch/nn/functional/loss.h>
#include <torch/nn/modules/activation.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/linear.h>

#include <chrono>
#include <thread>
#include <vector>

#include "distalgo/ddp/distributed_data_parallel.h"
#include "ranktest/ranktest.h"

// Outside an anonymous namespace: check_consumer.sh looks for its name among
// the binary's exported symbols, which a rank's stack is named from.
namespace consumer {

// The user's hook: sum the bucket over the ranks, then halve it by hand
// (at two ranks, what DDP's own averaging does, exactly).
distalgo::ddp::CommHook sumThenHalve(c10::intrusive_ptr<c10d::ProcessGroup> pg,
                                     int& calls) {
  return [pg, &calls](distalgo::ddp::GradBucket& bucket) {
    ++calls;
    std::vector<at::Tensor> tensors{bucket.buffer()};
    pg->allreduce(tensors)->wait();
    tensors[0].div_(2);
    auto future =
        c10::make_intrusive<c10::ivalue::Future>(c10::TensorType::get());
    future->markCompleted(tensors[0]);
    return future;
  };
}

}  // namespace consumer

namespace {

using Ddp = distalgo::ddp::DistributedDataParallel<torch::nn::Sequential>;

// Three SGD steps of a small MLP under DDP, with `hook` when given.
std::vector<at::Tensor> train(const c10::intrusive_ptr<c10d::ProcessGroup>& pg,
                              int rank, const distalgo::ddp::CommHook& hook) {
  torch::manual_seed(1);
  torch::nn::Sequential model(torch::nn::Linear(8, 16), torch::nn::ReLU(),
                              torch::nn::Linear(16, 4));
  Ddp ddp(model, pg);
  if (hook) ddp.registerCommHook(hook, "sum-then-halve");
  for (int step = 0; step < 3; ++step) {
    torch::manual_seed(100 * step + rank);
    const at::Tensor input = at::randn({5, 8});
    const at::Tensor target = at::randn({5, 4});
    for (auto& p : model->parameters()) p.mutable_grad() = at::Tensor();
    torch::nn::functional::mse_loss(ddp.forward(input), target).backward();
    at::NoGradGuard no_grad;
    for (auto& p : model->parameters()) p.sub_(0.1 * p.grad());
  }
  std::vector<at::Tensor> parameters;
  for (const auto& p : model->parameters()) parameters.push_back(p.clone());
  return parameters;
}

class ConsumerDdp : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

// Dividing by two is exact: the hook's model equals plain DDP's bit for bit.
RANKTEST_F(ConsumerDdp, OwnHookTrainsAsPlainDdp) {
  const auto plain = train(pg(), rank(), {});
  int calls = 0;
  const auto hooked = train(pg(), rank(), consumer::sumThenHalve(pg(), calls));
  EXPECT_EQ(calls, 3) << "one bucket per step";
  ASSERT_EQ(plain.size(), hooked.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    EXPECT_TRUE(at::equal(plain[i], hooked[i])) << "parameter " << i;
  }
}

}  // namespace

namespace consumer {

// Rank 1 waits for a key that rank 0, asleep, never sets: a hang.
// check_consumer.sh runs it (it is disabled in the suite) to see the hung
// ranks' stacks name these functions with file:line. Both wait past the
// test's deadline: a collective would give up at the group's timeout,
// which is the deadline itself, and sometimes end the rank first.
void sleepThroughTheDeadline() {
  std::this_thread::sleep_for(std::chrono::seconds(60));
}

void waitForAPeerThatNeverComes(const c10::intrusive_ptr<c10d::Store>& store) {
  store->wait({"a peer that never comes"}, std::chrono::seconds(60));
}

}  // namespace consumer

namespace {

class ConsumerHang : public ranktest::DistributedTest {
 public:
  static ranktest::TestOptions testOptions() { return {.world_sizes = {2}}; }
};

RANKTEST_F(ConsumerHang, DISABLED_RankOneWaitsAlone) {
  if (rank() == 0) {
    consumer::sleepThroughTheDeadline();
  } else {
    consumer::waitForAPeerThatNeverComes(store());
  }
}

}  // namespace
