// checkpoint: the activation memory and the step time of a deep MLP,
// plain and with every block checkpointed, in one process.

#include <ATen/ATen.h>
#include <torch/optim/sgd.h>

#include <memory>
#include <string>
#include <vector>

#include "algorithms/benchmarks.h"
#include "common/ranks.h"
#include "distalgo/checkpoint/apply_activation_checkpointing.h"
#include "fixtures/activation_memory.h"
#include "fixtures/deep_mlp.h"
#include "torch_compat/zero_grad.h"

namespace bench {
namespace {

struct DeepMlp {
  int depth = 8;
  int width = 128;  // the hidden layer of a block is 4 times wider
  int rows = 128;
};

// A step: zero the gradients, forward, mean of squares, backward, SGD. The
// memory of one step, taken after another (the gradients exist), is
// measured once: it does not vary.
class CheckpointMode : public Mode {
 public:
  CheckpointMode(const DeepMlp& shape, const std::string& mode)
      : model_(fixtures::makeDeepMlp(shape.depth, shape.width, /*seed=*/1)),
        input_(at::randn({shape.rows, shape.width})) {
    if (mode != "plain") {
      distalgo::checkpoint::applyActivationCheckpointing(
          *model_,
          [](const torch::nn::Module& m) {
            return dynamic_cast<const fixtures::MlpBlockImpl*>(&m) != nullptr;
          },
          {.offload_to_cpu = mode == "checkpoint_offload"});
    }
    sgd_ = std::make_unique<torch::optim::SGD>(model_->parameters(),
                                               torch::optim::SGDOptions(1e-3));
    step(0);
    memory_ = fixtures::measureActivationMemory([this] { return loss(); });
  }

  void step(int) override {
    torch_compat::zeroGrad(*sgd_, /*set_to_none=*/false);
    loss().backward();
    sgd_->step();
  }
  std::vector<RankValue> rankValues() override {
    return {{"retained_bytes", static_cast<double>(memory_.retained)},
            {"peak_bytes", static_cast<double>(memory_.peak)}};
  }

 private:
  at::Tensor loss() { return model_->forward(input_).square().mean(); }

  torch::nn::Sequential model_;
  at::Tensor input_;
  std::unique_ptr<torch::optim::SGD> sgd_;
  fixtures::ActivationMemory memory_;
};

}  // namespace

void checkpoint(Flags& flags) {
  const auto depths = flags.integers("depths", "8,16,32");
  DeepMlp shape{.width = flags.integer("width", 128),
                .rows = flags.integer("rows", 128)};
  const Schedule schedule =
      scheduleFlags(flags, {.warmup = 3, .steps = 40, .block = 5});
  const SampleFile out(flags.text("out", ""),
                       {"depth", "mode", "round", "metric", "value"});
  flags.checkAllRead();
  for (int depth : depths) {
    shape.depth = depth;
    // One rank: runRanks gives the process and its clean exit.
    inRanks(1, [&](const ranktest::Rank& rank) {
      std::vector<NamedMode> modes;
      for (const char* mode : {"plain", "checkpoint", "checkpoint_offload"}) {
        modes.push_back({mode, std::make_unique<CheckpointMode>(shape, mode)});
      }
      timeModes(rank, modes, schedule, {std::to_string(depth)}, out);
    });
  }
}

}  // namespace bench
