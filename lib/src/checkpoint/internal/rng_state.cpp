#include "checkpoint/internal/rng_state.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>

#include <algorithm>
#include <mutex>

namespace distalgo::checkpoint::internal {

RngState RngState::capture(const std::vector<c10::Device>& devices) {
  std::vector<at::Generator> generators{at::detail::getDefaultCPUGenerator()};
  std::vector<c10::Device> seen;
  for (const c10::Device& device : devices) {
    if (!device.is_cuda() ||
        std::find(seen.begin(), seen.end(), device) != seen.end()) {
      continue;
    }
    seen.push_back(device);
    generators.push_back(at::globalContext().defaultGenerator(device));
  }
  RngState state;
  for (at::Generator& generator : generators) {
    std::lock_guard<std::mutex> lock(generator.mutex());
    state.states_.emplace_back(generator, generator.get_state());
  }
  return state;
}

void RngState::restore() const {
  for (const auto& [generator, state] : states_) {
    at::Generator g = generator;
    std::lock_guard<std::mutex> lock(g.mutex());
    g.set_state(state);
  }
}

ReplayedRng::ReplayedRng(const RngState& saved,
                         const std::vector<c10::Device>& devices)
    : previous_(RngState::capture(devices)) {
  saved.restore();
}

ReplayedRng::~ReplayedRng() { previous_.restore(); }

}  // namespace distalgo::checkpoint::internal
