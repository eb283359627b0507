// bench_algorithms: times distalgo's algorithms in rank processes.
//
//   bench_algorithms <benchmark> --out=FILE [--name=value...]
//
// Benchmarks: ddp_step, join, zero, averaging, quantization, checkpoint,
// collective_check, codec, link (under a launcher: ci/cluster);
// their flags and defaults are at the top of each one's run function.
// Usually run through bench/run, which keeps the samples and summarises
// them.

#include <functional>
#include <map>
#include <stdexcept>
#include <string>

#include "algorithms/benchmarks.h"
#include "common/ranks.h"

namespace bench {

Schedule scheduleFlags(Flags& flags, const Schedule& defaults) {
  return {.warmup = flags.integer("warmup", defaults.warmup),
          .steps = flags.integer("steps", defaults.steps),
          .block = flags.integer("block", defaults.block)};
}

}  // namespace bench

int main(int argc, char** argv) {
  const int exit_code = bench::guardedMain("bench_algorithms", [&] {
    const std::map<std::string, std::function<void(bench::Flags&)>> kBenchmarks{
        {"ddp_step", &bench::ddpStep},
        {"join", &bench::join},
        {"zero", &bench::zero},
        {"averaging", &bench::averaging},
        {"quantization", &bench::quantization},
        {"checkpoint", &bench::checkpoint},
        {"collective_check", &bench::collectiveCheck},
        {"codec", &bench::codec},
        {"link", &bench::link}};
    const auto it = argc > 1 ? kBenchmarks.find(argv[1]) : kBenchmarks.end();
    if (it == kBenchmarks.end()) {
      throw std::invalid_argument(
          "usage: bench_algorithms ddp_step|join|zero|averaging|quantization|"
          "checkpoint|collective_check|codec|link --out=FILE "
          "[--name=value...]");
    }
    bench::Flags flags(argc - 1, argv + 1);
    it->second(flags);
  });
  return bench::finishLaunchedJob(exit_code);
}
