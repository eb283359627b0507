#pragma once

// The communication-hook parity kit: every row of a hook table trains a
// fixture model through DDP with its hook and is compared with reference DDP
// (the same DDP, model, data and buckets without a hook, whose average of
// the ranks' gradients is PyTorch's DDP bit for bit), with the single-process
// ground truth (one model trained on every rank's data at once), and its
// traffic with the row's prediction. A new hook joins with one row, in this
// tree or in a project on the installed package (target ranktest::hook_parity
// of find_package(ranktest COMPONENTS parity)):
//
//   const std::vector<hookparity::HookCase> kMine = {{
//       .name = "mine",
//       .make = [](const auto& pg) { return myHook(pg); },
//       .parity = hookparity::within(1e-3),
//       .traffic = [](const hookparity::TrafficContext& c) {
//         return hookparity::Bytes{{"allreduce", c.reference_bytes / 2}};
//       }}};
//   RANKTEST_INSTANTIATE_P(CommHookParity, kMine);
//
// The rows run the bodies of parity_bodies.cpp (CommHookParity.*) at world
// sizes 2, 3 and 4, or at those a trait of the rows names:
// RANKTEST_INSTANTIATE_P(CommHookParity, kMine, ranktest::worldSizes({2, 3})).

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "distalgo/ddp/comm_hook.h"
#include "fixtures/bucketed_models.h"
#include "fixtures/ddp_training.h"
#include "ranktest/ranktest.h"

namespace hookparity {

using Group = c10::intrusive_ptr<c10d::ProcessGroup>;

// How a hooked run must relate to reference DDP after the row's steps.
struct Parity {
  enum class Kind {
    kExact,      // bit for bit where dividing by the world size is exact
    kWithin,     // every parameter within `tolerance` (absolute)
    kConverges,  // the loss falls, parameters within `tolerance`
    kLocal,      // no communication: equals training alone on own data
  };
  Kind kind = Kind::kExact;
  double tolerance = 0;
};
inline Parity exact() { return {Parity::Kind::kExact, 0}; }
inline Parity within(double atol) { return {Parity::Kind::kWithin, atol}; }
inline Parity converges(double max_distance) {
  return {Parity::Kind::kConverges, max_distance};
}
inline Parity local() { return {Parity::Kind::kLocal, 0}; }

// What a row's traffic prediction may use.
struct TrafficContext {
  std::vector<at::Tensor> parameters;  // the model's, in registration order
  int world_size = 0;
  int steps = 0;
  std::string backend;
  // Bytes reference DDP put into allreduce over the same steps.
  std::int64_t reference_bytes = 0;
  int rank = 0;  // this rank: some traffic differs by rank
};
// Bytes this rank puts into each collective over the run, by collective name
// (as ranktest::CountingProcessGroup names them); unnamed ones must be 0.
using Bytes = std::map<std::string, std::int64_t>;

// Builds a hook over the group it communicates on.
using MakeHook = std::function<distalgo::ddp::CommHook(Group)>;

// One row of the table. `make` and `traffic` are required: ranktest refuses
// a row without them when it registers the tests (checkHookCase).
struct HookCase {
  std::string name;
  MakeHook make;
  Parity parity;
  std::function<Bytes(const TrafficContext&)> traffic;
  int steps = 3;
  double learning_rate = 0.1;
};

// Refuses a row that cannot run, with std::invalid_argument naming it:
// without `make` the row would train reference DDP and pass trivially;
// without `traffic` SendsThePredictedBytes would call an empty function.
void checkHookCase(const HookCase& row);

// Rows of data per rank and step in the suite's runs.
inline constexpr int kRows = 5;

// Trains `model` (seed 1) for `steps` SGD steps through DDP at its bucket
// caps on `pg`, with the hook that `make` builds (none: reference DDP),
// registered as `hook_name`, on this rank's data, on `device`.
inline fixtures::DdpTrained trainModel(
    const fixtures::BucketedModel& model, const Group& pg, int rank, int steps,
    double learning_rate, const MakeHook& make, c10::Device device = c10::kCPU,
    const std::string& hook_name = "custom") {
  fixtures::DdpTraining training = fixtures::ddpTrainingOf(model);
  training.device = device;
  training.hook_name = hook_name;
  if (make) training.hook = make(pg);
  training.rank = rank;
  training.rows = kRows;
  training.steps = steps;
  training.learning_rate = learning_rate;
  return fixtures::trainUnderDdp(pg, training);
}
// trainModel on fixtures::oneBucketMlp().
inline fixtures::DdpTrained trainMlp(const Group& pg, int rank, int steps,
                                     double learning_rate, const MakeHook& make,
                                     const std::string& hook_name = "custom") {
  return trainModel(fixtures::oneBucketMlp(), pg, rank, steps, learning_rate,
                    make, c10::kCPU, hook_name);
}

// The elements of all `tensors` together (e.g. of a one-bucket model).
inline std::int64_t numelOf(const std::vector<at::Tensor>& tensors) {
  std::int64_t n = 0;
  for (const auto& t : tensors) n += t.numel();
  return n;
}

namespace internal {
// Defined beside the parity bodies. Every file that includes this header
// refers to it, so that a static link takes the bodies (which nothing else
// names) from the library along with the table.
bool linkParityBodies();
inline const bool kParityBodiesLinked = linkParityBodies();
}  // namespace internal

}  // namespace hookparity

class CommHookParity
    : public ranktest::DistributedTestWithParam<hookparity::HookCase> {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }
  // ranktest calls this once per row when it registers the tests
  // (ranktest::init), before any rank starts: an incomplete row stops the
  // binary there, named, instead of failing in every rank.
  static std::string paramName(const hookparity::HookCase& row, std::size_t) {
    hookparity::checkHookCase(row);
    return row.name;
  }
};

// The same rows with the model, DDP's buckets and the hook's collectives on
// a GPU, against reference DDP there: NCCL at one rank per GPU, Gloo at two
// ranks (which may share one GPU). Skipped (code 74) where no GPU is
// visible. A table joins with RANKTEST_INSTANTIATE_P(CommHookCuda, kMine).
class CommHookCuda : public CommHookParity {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {1, 2}, .on_cuda = true};
  }
};
