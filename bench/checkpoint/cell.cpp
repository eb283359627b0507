#include "checkpoint/cell.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "distalgo/checkpoint/apply_activation_checkpointing.h"
#include "fixtures/activation_memory.h"
#include "fixtures/deep_mlp.h"
#include "fixtures/training.h"

namespace checkpoint_bench {
namespace {

constexpr double kLearningRate = 1e-3;

struct Mode {
  std::string name;
  torch::nn::Sequential model;
};

torch::nn::Sequential makeModel(const CellSpec& spec, const std::string& mode) {
  auto model = fixtures::makeDeepMlp(spec.depth, spec.width, /*seed=*/1);
  if (mode == "plain") return model;
  distalgo::checkpoint::applyActivationCheckpointing(
      *model,
      [](const torch::nn::Module& m) {
        return dynamic_cast<const fixtures::MlpBlockImpl*>(&m) != nullptr;
      },
      {.offload_to_cpu = mode == "checkpoint_offload"});
  return model;
}

at::Tensor loss(torch::nn::Sequential& model, const at::Tensor& x) {
  return model->forward(x).square().mean();
}

// One training step: zero the gradients, forward, loss, backward, SGD.
void step(torch::nn::Sequential& model, const at::Tensor& x) {
  const auto parameters = model->parameters();
  fixtures::zeroGrads(parameters);
  loss(model, x).backward();
  fixtures::sgdUpdate(parameters, kLearningRate);
}

}  // namespace

int runCell(const CellSpec& spec, const std::string& out) {
  if (spec.depth < 1 || spec.width < 1 || spec.rows < 1 || spec.block < 1 ||
      spec.steps < spec.block || spec.warmup < 0) {
    throw std::invalid_argument(
        "bench_checkpoint: expected depth, width, rows, block >= 1, steps >= "
        "block and warmup >= 0");
  }
  at::set_num_threads(1);
  std::ofstream lines(out, std::ios::app);
  const std::string cell = std::to_string(spec.depth);
  const at::Tensor x = at::randn({spec.rows, spec.width});

  std::vector<Mode> modes;
  for (const char* name : kModes) {
    Mode mode{name, makeModel(spec, name)};
    step(mode.model, x);  // the gradients exist from here on
    const auto memory =
        fixtures::measureActivationMemory([&] { return loss(mode.model, x); });
    lines << "memory\t" << cell << "\t" << name << "\t" << memory.retained
          << "\t" << memory.peak << "\n";
    for (int i = 0; i < spec.warmup; ++i) step(mode.model, x);
    modes.push_back(std::move(mode));
  }

  const int rounds = spec.steps / spec.block;
  for (int round = 0; round < rounds; ++round) {
    for (std::size_t k = 0; k < modes.size(); ++k) {
      Mode& mode = modes[(k + round) % modes.size()];
      for (int i = 0; i < spec.block; ++i) {
        const auto start = std::chrono::steady_clock::now();
        step(mode.model, x);
        const std::chrono::duration<double, std::micro> us =
            std::chrono::steady_clock::now() - start;
        lines << "step\t" << cell << "\t" << mode.name << "\t" << round << "\t"
              << us.count() << "\n";
      }
    }
  }
  lines.flush();
  if (!lines) throw std::runtime_error("bench_checkpoint: cannot write " + out);
  return 0;
}

}  // namespace checkpoint_bench
