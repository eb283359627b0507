#pragma once

// A mode that trains a model with distalgo's DDP: a step zeroes the
// gradients, runs forward, the MSE loss and backward through DDP, then the
// optimizer step that the benchmark sets. Every DdpMode has its own model
// (the same parameters in every rank) and DDP, so that no mode inherits
// another's reducer state. Its DDP reduces through a
// ranktest::CountingProcessGroup, which gives the bytes sent per step.

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/models.h"
#include "common/runner.h"
#include "distalgo/ddp/distributed_data_parallel.h"
#include "ranktest/counting_process_group.h"

namespace bench {

class DdpMode : public Mode {
 public:
  using Ddp = distalgo::ddp::DistributedDataParallel<torch::nn::Sequential>;
  using CountingGroup = c10::intrusive_ptr<ranktest::CountingProcessGroup>;

  // Collective: builds the DDP over the rank's group.
  DdpMode(const Model& model, const ranktest::Rank& rank, int rows,
          const distalgo::ddp::DdpOptions& options = {});

  Ddp& ddp() { return ddp_; }
  // What DDP reduces over; a hook or optimizer that sends should use it
  // too, so that its bytes count.
  const CountingGroup& group() const { return group_; }
  // The store the rank's group was built on (for subgroups).
  const c10::intrusive_ptr<c10d::Store>& store() const { return store_; }
  // Runs after backward, e.g. an optimizer's step; nothing by default.
  void setOptimizerStep(std::function<void()> step);
  // Adds a number of this rank to rankValues().
  void addRankValue(std::string metric, std::function<double()> read);

  void step(int index) override;
  void startTiming() override;
  // Per timed step and collective, "sent_bytes:<collective>" and
  // "calls:<collective>"; then the added values.
  std::vector<RankValue> rankValues() override;

 private:
  CountingGroup group_;
  c10::intrusive_ptr<c10d::Store> store_;
  Ddp ddp_;
  std::vector<fixtures::Batch> batches_;
  std::function<void()> optimizer_step_;
  std::vector<std::pair<std::string, std::function<double()>>> values_;
  int timed_steps_ = 0;
};

// Sets libtorch's SGD over the mode's parameters as its optimizer step.
void useSgd(DdpMode& mode, double learning_rate = 0.01);

}  // namespace bench
