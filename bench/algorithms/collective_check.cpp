// collective_check: what ranktest's collective-mismatch check
// (ranktest::withCollectiveCheck, the checkCollectives() trait) adds to each
// collective call: the same allreduce and broadcast on the plain group and
// on the checked one, side by side.

#include "ranktest/collective_check.h"

#include <ATen/ATen.h>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <vector>

#include "algorithms/benchmarks.h"
#include "common/ranks.h"

namespace bench {
namespace {

using Group = c10::intrusive_ptr<c10d::ProcessGroup>;

// One collective call on one group, of `numel` floats.
class CollectiveCall : public Mode {
 public:
  CollectiveCall(Group pg, const std::string& collective, std::int64_t numel)
      : pg_(std::move(pg)),
        broadcast_(collective == "broadcast"),
        tensors_{at::randn({numel})} {}

  void step(int) override {
    if (broadcast_) {
      pg_->broadcast(tensors_)->wait();
    } else {
      pg_->allreduce(tensors_)->wait();
    }
  }

 private:
  Group pg_;
  bool broadcast_;
  std::vector<at::Tensor> tensors_;
};

}  // namespace

void collectiveCheck(Flags& flags) {
  const auto sizes_kib = flags.list("sizes_kib", "1,1024");
  const auto world_sizes = flags.integers("world_sizes", "2,4");
  const Schedule schedule =
      scheduleFlags(flags, {.warmup = 20, .steps = 400, .block = 20});
  const SampleFile out(
      flags.text("out", ""),
      {"kib", "ranks", "collective", "mode", "round", "metric", "value"});
  flags.checkAllRead();
  for (const std::string& kib : sizes_kib) {
    const auto numel = static_cast<std::int64_t>(std::stod(kib) * 256);
    for (int world_size : world_sizes) {
      inRanks(world_size, [&](const ranktest::Rank& rank) {
        const Group checked = ranktest::withCollectiveCheck(
            rank.pg,
            c10::make_intrusive<c10d::PrefixStore>("bench", rank.store),
            std::chrono::seconds(60));
        for (const std::string collective : {"allreduce", "broadcast"}) {
          std::vector<NamedMode> modes;
          modes.push_back({"plain", std::make_unique<CollectiveCall>(
                                        rank.pg, collective, numel)});
          modes.push_back({"checked", std::make_unique<CollectiveCall>(
                                          checked, collective, numel)});
          timeModes(rank, modes, schedule,
                    {kib, std::to_string(world_size), collective}, out);
        }
      });
    }
  }
}

}  // namespace bench
