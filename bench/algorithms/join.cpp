// join: the DDP step inside an enabled Join and inside a disabled one
// against plain DDP, with even inputs; and with rank 0 joining early, what a
// shadowed iteration costs it and the other ranks.

#include "distalgo/join/join.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/benchmarks.h"
#include "algorithms/ddp_variants.h"
#include "common/ranks.h"

namespace bench {
namespace {

using distalgo::join::Join;

// Each block of steps inside a fresh Join; entering and finishing it (one
// allreduce round and the model sync with even inputs) are not timed.
class JoinMode : public DdpMode {
 public:
  JoinMode(const Model& model, const ranktest::Rank& rank,
           const ModelCells& cells, bool enable)
      : DdpMode(model, rank, cells.rows, cells.ddp), enable_(enable) {
    useSgd(*this);
  }
  void startBlock() override { join_.emplace(joinables(), options()); }
  void endBlock() override {
    join_->finish();
    join_.reset();
  }

 private:
  std::vector<distalgo::join::Joinable*> joinables() { return {&ddp()}; }
  distalgo::join::JoinOptions options() const { return {.enable = enable_}; }

  bool enable_;
  std::optional<Join> join_;
};

struct Uneven {
  int joins = 10;  // Joins one after another
  int early = 10;  // rank 0's steps in each
  int steps = 30;  // the other ranks' steps in each
};

// Per Join (its round): the slowest training rank's steps before and after
// rank 0 joined, and rank 0's finish() divided by the iterations it
// shadowed. Collective.
std::vector<Row> timeUneven(const ranktest::Rank& rank, DdpMode& mode,
                            const Uneven& uneven, const Row& key) {
  std::vector<double> train_us;
  std::vector<Row> rows;
  for (int round = 0; round < uneven.joins; ++round) {
    Join join({&mode.ddp()});
    if (rank.rank == 0) {
      for (int i = 0; i < uneven.early; ++i) mode.step(i);
      const auto start = std::chrono::steady_clock::now();
      join.finish();
      const double shadowed = uneven.steps - uneven.early;
      rows.push_back({"uneven", std::to_string(round), "shadowed_us",
                      toText(microsSince(start) / shadowed)});
      // Zeros, so that the slowest rank is a training rank.
      train_us.insert(train_us.end(), uneven.steps, 0.0);
      continue;
    }
    for (int i = 0; i < uneven.steps; ++i) {
      const auto start = std::chrono::steady_clock::now();
      mode.step(i);
      train_us.push_back(microsSince(start));
    }
    join.finish();
  }
  const std::vector<double> slowest = slowestRank(rank.pg, train_us);
  for (std::size_t i = 0; i < slowest.size(); ++i) {
    const int round = static_cast<int>(i) / uneven.steps;
    const bool after = static_cast<int>(i) % uneven.steps >= uneven.early;
    rows.push_back({"uneven", std::to_string(round),
                    after ? "after_us" : "before_us", toText(slowest[i])});
  }
  for (Row& row : rows) row.insert(row.begin(), key.begin(), key.end());
  return rows;
}

}  // namespace

void join(Flags& flags) {
  const ModelCells cells =
      modelCellFlags(flags, "mlp,convnet,wide_mlp",
                     {.warmup = 10, .steps = 300, .block = 20}, 25);
  const Uneven uneven{.joins = flags.integer("joins", 10),
                      .early = flags.integer("early", 10),
                      .steps = flags.integer("uneven_steps", 30)};
  const SampleFile out(flags.text("out", ""), variantHeader({}));
  flags.checkAllRead();
  for (const std::string& name : cells.models) {
    const Model& model = modelNamed(name);
    for (int world_size : cells.world_sizes) {
      const Row key{name, std::to_string(world_size)};
      inRanks(world_size, [&](const ranktest::Rank& rank) {
        auto plain =
            std::make_unique<DdpMode>(model, rank, cells.rows, cells.ddp);
        useSgd(*plain);
        auto joined = std::make_unique<JoinMode>(model, rank, cells, true);
        JoinMode& warm_join = *joined;
        std::vector<NamedMode> modes;
        modes.push_back({"plain", std::move(plain)});
        modes.push_back({"join", std::move(joined)});
        modes.push_back({"join_disabled", std::make_unique<JoinMode>(
                                              model, rank, cells, false)});
        timeModes(rank, modes, cells.schedule, key, out);
        // The enabled Join's DDP, warmed up and timed already.
        const std::vector<Row> samples =
            timeUneven(rank, warm_join, uneven, key);
        if (rank.rank == 0) out.append(samples);
      });
    }
  }
}

}  // namespace bench
