// link: the DDP step of a model of realistic size (link_mlp, 25.2 M
// parameters, 100 MB of gradients) under each hook, ZeRO and local SGD, on
// a link of a given speed: the binary runs as a launched job across
// ci/cluster's emulated hosts (bench/run link), one process per rank. The
// link's measured throughput is recorded beside the steps. bench/link_ddp.py
// times PyTorch's own hooks over the same links.

#include <ATen/ATen.h>
#include <torch/optim/sgd.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "algorithms/benchmarks.h"
#include "algorithms/ddp_variants.h"
#include "common/ranks.h"
#include "distalgo/hooks/bf16_compress.h"
#include "distalgo/hooks/fp16_compress.h"
#include "distalgo/hooks/quantization.h"
#include "distalgo/zero/zero_redundancy_optimizer.h"

namespace bench {
namespace {

using LinkGroup = c10::intrusive_ptr<c10d::ProcessGroup>;

constexpr double kLinkLearningRate = 0.01;
constexpr int kAveragingPeriod = 4;
constexpr std::int64_t kProbeBytes = 64 << 20;
constexpr int kProbeTransfers = 3;

// ZeRO over SGD: each rank steps its shard, then broadcasts it.
void useZeroSgd(DdpMode& mode) {
  auto zero = std::make_shared<distalgo::zero::ZeroRedundancyOptimizer>(
      mode.ddp().module()->parameters(), mode.group(),
      distalgo::zero::localOptimizer<torch::optim::SGD>(
          torch::optim::SGDOptions(kLinkLearningRate)));
  mode.setOptimizerStep([zero] { zero->step(); });
}

std::vector<DdpVariant> linkVariants() {
  namespace h = distalgo::hooks;
  return {
      withSgd("allreduce", [](DdpMode&) {}),
      hookWithSgd("fp16_compress",
                  [](const LinkGroup& g) { return h::fp16CompressHook(g); }),
      hookWithSgd("bf16_compress",
                  [](const LinkGroup& g) { return h::bf16CompressHook(g); }),
      hookWithSgd("powersgd(rank=1)", powerSgd(1, false)),
      hookWithSgd("powersgd(rank=4)", powerSgd(4, false)),
      hookWithSgd("batched_powersgd(rank=1)", powerSgd(1, true)),
      hookWithSgd(
          "quantization_per_tensor",
          [](const LinkGroup& g) { return h::quantizationPerTensorHook(g); }),
      hookWithSgd(
          "quantization_per_channel",
          [](const LinkGroup& g) { return h::quantizationPerChannelHook(g); }),
      {"zero", &useZeroSgd},
      // Gradients averaged within the host (its ranks share no link).
      {"local_sgd_4",
       [](DdpMode& m) {
         useLocalSgd(m, distalgo::groups::SubgroupProvider(), true,
                     kAveragingPeriod);
       }},
  };
}

// The throughput, in Gbit/s, of the link between rank 0 and the first rank
// of the next host (rank 1 on one host): the median of a few one-way
// transfers of kProbeBytes, each acknowledged. Collective.
double probeLinkGbits(const ranktest::Rank& rank) {
  const int peer =
      rank.local_world_size < rank.world_size ? rank.local_world_size : 1;
  at::Tensor data = at::ones({kProbeBytes}, at::kByte);
  at::Tensor ack = at::zeros({1}, at::kByte);
  std::vector<double> seconds;
  for (int i = 0; i < kProbeTransfers; ++i) {
    rank.pg->barrier()->wait();
    const auto start = std::chrono::steady_clock::now();
    std::vector<at::Tensor> payload{data};
    std::vector<at::Tensor> reply{ack};
    if (rank.rank == 0) {
      rank.pg->send(payload, peer, 0)->wait();
      rank.pg->recv(reply, peer, 1)->wait();
    } else if (rank.rank == peer) {
      rank.pg->recv(payload, 0, 0)->wait();
      rank.pg->send(reply, 0, 1)->wait();
    }
    seconds.push_back(microsSince(start) / 1e6);
  }
  std::sort(seconds.begin(), seconds.end());
  return static_cast<double>(kProbeBytes) * 8 / 1e9 /
         seconds[seconds.size() / 2];
}

}  // namespace

void link(Flags& flags) {
  const std::optional<int> launched = launchedWorldSize();
  // Under a launcher the cell is the job; without one, forked ranks on
  // loopback (a smoke run).
  const std::string world =
      launched ? std::to_string(*launched) : std::string("2");
  ModelCells cells;
  cells.models = flags.list("models", "link_mlp");
  cells.world_sizes = flags.integers("world_sizes", world);
  cells.rows = flags.integer("rows", 16);
  cells.schedule = scheduleFlags(
      flags, {.warmup = kAveragingPeriod, .steps = 12, .block = 4});
  // One bucket: PyTorch 1.13's PowerSGD hook sends from the callbacks of
  // earlier buckets, which on Gloo race with later buckets' collectives and
  // hang the Python side of this benchmark with several; both sides alike.
  cells.ddp.bucket_cap_mb = flags.number("bucket_cap_mb", 128);
  // As large models are trained (and bench/link_ddp.py does): the
  // gradients live in the buckets, one copy fewer per mode.
  cells.ddp.gradient_as_bucket_view = true;
  const std::string link_name = flags.text("link", "loopback");
  const std::string hosts = std::to_string(flags.integer("hosts", 1));
  const Row prefix{"cpp", link_name, hosts};
  const SampleFile out(samplesPath(flags.text("out", "")),
                       variantHeader({"side", "link", "hosts"}));
  flags.checkAllRead();
  for (int world_size : cells.world_sizes) {
    inRanks(world_size, [&](const ranktest::Rank& rank) {
      const double gbits = probeLinkGbits(rank);
      Row row = prefix;
      row.insert(row.end(), {"-", std::to_string(world_size), "link", "-",
                             "gbit_per_s", toText(gbits)});
      if (rank.rank == 0) out.append({row});
    });
  }
  timeVariants(cells, linkVariants(), prefix, out);
}

}  // namespace bench
