#include "quantization/cell.h"

#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "bench_common/ranks.h"
#include "quantization/calls.h"
#include "ranktest/counting_process_group.h"

namespace quant_bench {
namespace {

const std::optional<DQuantType> kModes[] = {std::nullopt, DQuantType::FP16,
                                            DQuantType::BFP16};
constexpr std::size_t kModeCount = std::size(kModes);

const CollectiveRow& rowOf(const std::string& name) {
  for (const CollectiveRow& row : collectiveRows()) {
    if (row.name == name) return row;
  }
  throw std::invalid_argument("unknown collective " + name);
}

// Elements per rank: size_mb of float32, a multiple of the world size (the
// collectives that split send equal parts).
std::int64_t numelOf(const CellSpec& spec) {
  const auto floats = static_cast<std::int64_t>(spec.size_mb * 1024 * 1024 / 4);
  return std::max<std::int64_t>(floats / spec.world_size, 1) * spec.world_size;
}

// The bytes one call puts in, summed over the ranks. Collective.
std::int64_t bytesPerCall(const Group& group,
                          ranktest::CountingProcessGroup& counting,
                          const Call& call) {
  if (call.reset) call.reset();
  counting.reset();
  call.run();
  std::int64_t mine = 0;
  for (const auto& [collective, traffic] : counting.allTraffic()) {
    mine += traffic.bytes;
  }
  std::vector<at::Tensor> sum{at::full({1}, mine, at::kLong)};
  group->allreduce(sum)->wait();
  return sum[0].item<std::int64_t>();
}

struct ModeResult {
  std::vector<double> us;
  std::vector<int> round_of;
  std::int64_t bytes = 0;
};

std::vector<ModeResult> runCollective(const CellSpec& spec, const Group& group,
                                      const CollectiveRow& row) {
  auto counting = c10::make_intrusive<ranktest::CountingProcessGroup>(group);
  const std::int64_t numel = numelOf(spec);
  std::vector<Call> calls;
  std::vector<ModeResult> results(kModeCount);
  for (std::size_t m = 0; m < kModeCount; ++m) {
    calls.push_back(row.make(counting, numel, kModes[m]));
    results[m].bytes = bytesPerCall(group, *counting, calls[m]);
    for (int i = 0; i < spec.warmup; ++i) {
      if (calls[m].reset) calls[m].reset();
      calls[m].run();
    }
  }
  group->barrier()->wait();
  for (int round = 0, done = 0; done < spec.calls; ++round) {
    const int n = std::min(spec.block, spec.calls - done);
    for (std::size_t j = 0; j < kModeCount; ++j) {
      const std::size_t m = (round + j) % kModeCount;
      for (int i = 0; i < n; ++i) {
        if (calls[m].reset) calls[m].reset();
        const std::int64_t start = bench_common::nowNs();
        calls[m].run();
        results[m].us.push_back((bench_common::nowNs() - start) / 1e3);
        results[m].round_of.push_back(round);
      }
    }
    done += n;
  }
  for (ModeResult& result : results) {
    result.us = bench_common::slowestRankPerStep(group, result.us);
  }
  return results;
}

void runRank(const CellSpec& spec, int rank, const std::string& store_path,
             const std::string& out) {
  at::set_num_threads(1);
  const Group group =
      bench_common::glooGroup(store_path, rank, spec.world_size);
  std::ostringstream lines;
  std::ostringstream key;
  key << spec.size_mb << "\t" << spec.world_size;
  for (const std::string& name : spec.collectives) {
    const std::vector<ModeResult> results =
        runCollective(spec, group, rowOf(name));
    for (std::size_t m = 0; m < kModeCount; ++m) {
      const std::string mode = modeName(kModes[m]);
      const ModeResult& r = results[m];
      for (std::size_t i = 0; i < r.us.size(); ++i) {
        lines << "call\t" << key.str() << "\t" << name << "\t" << mode << "\t"
              << r.round_of[i] << "\t" << r.us[i] << "\n";
      }
      lines << "bytes\t" << key.str() << "\t" << name << "\t" << mode << "\t"
            << r.bytes << "\n";
    }
  }
  if (rank != 0) return;
  std::ofstream file(out, std::ios::app);
  file << lines.str();
  if (!file.flush()) throw std::runtime_error("cannot write " + out);
}

}  // namespace

int runCell(const CellSpec& spec, const std::string& out) {
  for (const std::string& name : spec.collectives) rowOf(name);
  if (spec.calls < 1 || spec.block < 1 || spec.warmup < 0 ||
      spec.size_mb <= 0 || spec.world_size < 2) {
    throw std::invalid_argument(
        "calls, block and size must be positive, warmup not negative, the "
        "world size at least 2");
  }
  return bench_common::forkRanks(spec.world_size, "quantization",
                                 [&](int rank, const std::string& store_path) {
                                   runRank(spec, rank, store_path, out);
                                 });
}

}  // namespace quant_bench
