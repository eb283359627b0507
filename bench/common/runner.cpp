#include "common/runner.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "common/ranks.h"

namespace bench {
namespace {

// `n` steps of `mode` from step `first`; their times go to `us` if given.
void runBlock(Mode& mode, int first, int n, std::vector<double>* us) {
  mode.startBlock();
  for (int i = first; i < first + n; ++i) {
    mode.prepare(i);
    const auto start = std::chrono::steady_clock::now();
    mode.step(i);
    if (us) us->push_back(microsSince(start));
  }
  mode.endBlock();
}

Row keyed(const Row& key, const Row& rest) {
  Row row = key;
  row.insert(row.end(), rest.begin(), rest.end());
  return row;
}

}  // namespace

double microsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now() - start)
      .count();
}

void timeModes(const ranktest::Rank& rank, std::vector<NamedMode>& modes,
               const Schedule& schedule, const Row& key,
               const SampleFile& out) {
  if (modes.empty() || schedule.steps < 1 || schedule.block < 1) {
    throw std::invalid_argument("timeModes: no modes, steps or block");
  }
  for (NamedMode& m : modes) {
    runBlock(*m.mode, 0, schedule.warmup, nullptr);
    m.mode->startTiming();
  }
  rank.pg->barrier()->wait();

  const std::size_t n = modes.size();
  std::vector<std::vector<double>> us(n);
  std::vector<int> round_of_step;
  for (int round = 0, done = 0; done < schedule.steps; ++round) {
    const int block = std::min(schedule.block, schedule.steps - done);
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t m = (round + j) % n;
      runBlock(*modes[m].mode, schedule.warmup + done, block, &us[m]);
    }
    round_of_step.insert(round_of_step.end(), block, round);
    done += block;
  }

  std::vector<Row> rows;
  for (std::size_t m = 0; m < n; ++m) {
    const std::vector<double> slowest = slowestRank(rank.pg, us[m]);
    for (std::size_t i = 0; i < slowest.size(); ++i) {
      rows.push_back(
          keyed(key, {modes[m].name, std::to_string(round_of_step[i]),
                      "step_us", toText(slowest[i])}));
    }
    const std::vector<RankValue> values = modes[m].mode->rankValues();
    std::vector<double> mine;
    for (const RankValue& v : values) mine.push_back(v.value);
    for (const std::vector<double>& theirs : allGather(rank.pg, mine)) {
      for (std::size_t k = 0; k < values.size(); ++k) {
        rows.push_back(keyed(
            key, {modes[m].name, "-", values[k].metric, toText(theirs[k])}));
      }
    }
  }
  if (rank.rank == 0) out.append(rows);
}

}  // namespace bench
