// quantization: the time per call and the bytes on the wire of each
// quantized collective (fp16, bfp16) against the exact float32 one.

#include <ATen/ATen.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "algorithms/benchmarks.h"
#include "common/ranks.h"
#include "distalgo/quantization/collectives.h"
#include "ranktest/counting_process_group.h"

namespace bench {
namespace {

namespace q = distalgo::quantization;
using Group = c10::intrusive_ptr<c10d::ProcessGroup>;
using Qtype = std::optional<q::DQuantType>;  // nothing: exact

struct Call {
  std::function<void()> run;
  std::function<void()> reset;  // untimed before each run; may be empty
};

// Equal parts of numel / W floats, one for each rank.
std::vector<at::Tensor> parts(const Group& pg, std::int64_t numel) {
  std::vector<at::Tensor> out;
  for (int r = 0; r < pg->getSize(); ++r) {
    out.push_back(at::randn({numel / pg->getSize()}));
  }
  return out;
}

Call allGather(const Group& pg, std::int64_t numel, Qtype qtype) {
  at::Tensor input = at::randn({numel});
  std::vector<std::vector<at::Tensor>> outputs(1);
  for (int r = 0; r < pg->getSize(); ++r) {
    outputs[0].push_back(at::empty({numel}));
  }
  if (qtype)
    return {[=]() mutable { q::allGather(pg, outputs[0], input, *qtype); }};
  return {[=]() mutable {
    std::vector<at::Tensor> inputs{input};
    pg->allgather(outputs, inputs)->wait();
  }};
}

// The exact all_to_all is one alltoall_base, as the quantized one: Gloo has
// no list alltoall.
Call allToAll(const Group& pg, std::int64_t numel, Qtype qtype) {
  std::vector<at::Tensor> inputs = parts(pg, numel);
  std::vector<at::Tensor> outputs = parts(pg, numel);
  if (qtype)
    return {[=]() mutable { q::allToAll(pg, outputs, inputs, *qtype); }};
  at::Tensor send = at::cat(inputs);
  at::Tensor received = at::empty_like(send);
  return {[=]() mutable {
    std::vector<std::int64_t> equal_splits;
    pg->alltoall_base(received, send, equal_splits, equal_splits)->wait();
  }};
}

Call allToAllSingle(const Group& pg, std::int64_t numel, Qtype qtype) {
  at::Tensor input = at::randn({numel});
  at::Tensor output = at::empty({numel});
  if (qtype) {
    return {[=]() mutable { q::allToAllSingle(pg, output, input, *qtype); }};
  }
  return {[=]() mutable {
    std::vector<std::int64_t> equal_splits;
    pg->alltoall_base(output, input, equal_splits, equal_splits)->wait();
  }};
}

Call scatter(const Group& pg, std::int64_t numel, Qtype qtype) {
  std::vector<at::Tensor> inputs;
  if (pg->getRank() == 0) inputs = parts(pg, numel);
  at::Tensor output = at::empty({numel / pg->getSize()});
  if (qtype) {
    return {[=]() mutable { q::scatter(pg, output, inputs, 0, *qtype); }};
  }
  return {[=]() mutable {
    std::vector<at::Tensor> outputs{output};
    std::vector<std::vector<at::Tensor>> lists;
    if (!inputs.empty()) lists.push_back(inputs);
    pg->scatter(outputs, lists)->wait();
  }};
}

// The sum overwrites the tensor: every call starts from the same values.
Call allReduce(const Group& pg, std::int64_t numel, Qtype qtype) {
  const at::Tensor source = at::randn({numel});
  at::Tensor tensor = source.clone();
  auto reset = [=]() mutable { tensor.copy_(source); };
  if (qtype)
    return {[=]() mutable { q::allReduce(pg, tensor, *qtype); }, reset};
  return {[=]() mutable {
            std::vector<at::Tensor> tensors{tensor};
            pg->allreduce(tensors)->wait();
          },
          reset};
}

using MakeCall = Call (*)(const Group&, std::int64_t, Qtype);
const std::vector<std::pair<std::string, MakeCall>> kCollectives = {
    {"all_gather", &allGather},
    {"all_to_all", &allToAll},
    {"all_to_all_single", &allToAllSingle},
    {"scatter", &scatter},
    {"all_reduce", &allReduce}};

// One collective in one mode through a counting group, which gives the
// bytes this rank puts into a call, counted once before timing.
class CallMode : public Mode {
 public:
  CallMode(Call call, ranktest::CountingProcessGroup& counting)
      : call_(std::move(call)) {
    prepare(0);
    counting.reset();
    call_.run();
    for (const auto& [collective, traffic] : counting.allTraffic()) {
      sent_bytes_ += static_cast<double>(traffic.bytes);
    }
  }
  void prepare(int) override {
    if (call_.reset) call_.reset();
  }
  void step(int) override { call_.run(); }
  std::vector<RankValue> rankValues() override {
    return {{"sent_bytes", sent_bytes_}};
  }

 private:
  Call call_;
  double sent_bytes_ = 0;
};

}  // namespace

void quantization(Flags& flags) {
  const auto sizes_mib = flags.list("sizes_mib", "1,64");
  const auto world_sizes = flags.integers("world_sizes", "2,4");
  const Schedule schedule =
      scheduleFlags(flags, {.warmup = 2, .steps = 20, .block = 5});
  const SampleFile out(
      flags.text("out", ""),
      {"mib", "ranks", "collective", "mode", "round", "metric", "value"});
  flags.checkAllRead();
  for (const std::string& mib : sizes_mib) {
    for (int world_size : world_sizes) {
      // Floats going in on each rank, a multiple of the world size.
      const auto floats = static_cast<std::int64_t>(std::stod(mib) * 262144);
      const std::int64_t numel =
          std::max<std::int64_t>(floats / world_size, 1) * world_size;
      inRanks(world_size, [&](const ranktest::Rank& rank) {
        auto counting =
            c10::make_intrusive<ranktest::CountingProcessGroup>(rank.pg);
        for (const auto& [collective, make] : kCollectives) {
          std::vector<NamedMode> modes;
          for (Qtype qtype : {Qtype(), Qtype(q::DQuantType::FP16),
                              Qtype(q::DQuantType::BFP16)}) {
            modes.push_back({qtype ? std::string(q::toString(*qtype)) : "exact",
                             std::make_unique<CallMode>(
                                 make(counting, numel, qtype), *counting)});
          }
          timeModes(rank, modes, schedule,
                    {mib, std::to_string(world_size), collective}, out);
        }
      });
    }
  }
}

}  // namespace bench
