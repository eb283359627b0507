#pragma once

// libtorch's optimizer archive (torch/optim/serialize.h, what
// Optimizer::save writes), handled without knowing the optimizer type: the
// state is keyed by names of the parameters' TensorImpl addresses and groups
// list their parameters' names, so a load maps states to parameters by
// position. The names are decimal, which every libtorch reads
// (torch_compat/optimizer_state.h).

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/util/Optional.h>
#include <torch/optim/optimizer.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "torch_compat/optimizer_state.h"

namespace distalgo::zero::internal {

// A parameter group to write: its parameters and its options.
struct ArchiveGroup {
  std::vector<at::Tensor> params;
  const torch::optim::OptimizerOptions* options;
};

using torch_compat::OptimizerState;
using torch_compat::stateKey;

// Writes `groups` and, of `state`, the entries of the `with_state`
// parameters only, as Optimizer::save would for an optimizer over `groups`.
std::string writeArchive(const std::vector<ArchiveGroup>& groups,
                         const OptimizerState& state,
                         const std::vector<at::Tensor>& with_state);

std::string saveOptimizer(const torch::optim::Optimizer& optimizer);

// optimizer.load() of `bytes`: sets the state of each parameter whose
// position has one in the archive, keeps the others'. Its tensors land on
// `device`, else where they were saved. Throws std::invalid_argument if
// libtorch cannot read it.
void loadOptimizer(torch::optim::Optimizer& optimizer, const std::string& bytes,
                   c10::optional<c10::Device> device = c10::nullopt);

// Optimizers from `make`, one per device that `parameters` are on, each
// loaded from `bytes` onto its device: every state lands on its parameter's
// device, as PyTorch's ZeRO copies it there. With no parameters, one load
// onto the CPU still checks that libtorch reads `bytes`.
class LoadedPerDevice {
 public:
  LoadedPerDevice(
      const std::vector<at::Tensor>& parameters, const std::string& bytes,
      const std::function<std::unique_ptr<torch::optim::Optimizer>()>& make);
  // The optimizer loaded onto `parameter`'s device.
  torch::optim::Optimizer& of(const at::Tensor& parameter);

 private:
  std::vector<std::pair<c10::Device, std::unique_ptr<torch::optim::Optimizer>>>
      loaded_;
};

// Throws std::invalid_argument, saying what differs, unless `bytes` is an
// optimizer archive over `groups`' shape: as many groups, as many parameters
// in each, and every non-scalar state tensor of a parameter sized like it;
// on libtorch 2.x also unless every parameter is named in decimal (1.x wrote
// hex, which 2.x would read as 0 for every parameter).
void checkArchiveFits(const std::string& bytes,
                      const std::vector<std::vector<at::Tensor>>& groups);

// Each group's options in `bytes`, read into a copy of `like`'s group of the
// same index (which gives the options type). `bytes` must fit `like`.
std::vector<std::unique_ptr<torch::optim::OptimizerOptions>> readGroupOptions(
    const std::string& bytes, const torch::optim::Optimizer& like);

}  // namespace distalgo::zero::internal
