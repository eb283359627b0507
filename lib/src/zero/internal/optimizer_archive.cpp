#include "zero/internal/optimizer_archive.h"

#include <c10/util/Exception.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/serialization/import.h>
#include <torch/serialize/archive.h>
#include <torch/types.h>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "internal/check.h"

namespace distalgo::zero::internal {
namespace {

using torch::serialize::InputArchive;
using torch::serialize::OutputArchive;

constexpr const char* kNotAnArchive = "not a libtorch optimizer archive: ";

InputArchive openArchive(const std::string& bytes,
                         c10::optional<c10::Device> device = c10::nullopt) {
  InputArchive archive;
  try {
    archive.load_from(bytes.data(), bytes.size(), device);
  } catch (const c10::Error& e) {
    DISTALGO_CHECK_ARG(false, kNotAnArchive, e.what_without_backtrace());
  }
  return archive;
}

// The submodule `name` of an archive opened as a TorchScript module (which
// it is), to read entries whose names are not known in advance.
torch::jit::Module submodule(const torch::jit::Module& parent,
                             const std::string& name) {
  DISTALGO_CHECK_ARG(parent.hasattr(name) && parent.attr(name).isObject(),
                     kNotAnArchive, "it has no '", name, "'");
  return parent.attr(name).toModule();
}

void checkStateSizes(const torch::jit::Module& state, const std::string& key,
                     const at::Tensor& parameter, std::size_t g,
                     std::size_t i) {
  if (!state.hasattr(key)) return;  // no state yet for this parameter
  for (const auto& entry : submodule(state, key).named_attributes(false)) {
    if (!entry.value.isTensor()) continue;
    const auto& tensor = entry.value.toTensor();
    // Scalars (step counters) have no parameter shape.
    DISTALGO_CHECK_ARG(tensor.dim() == 0 || tensor.sizes() == parameter.sizes(),
                       "group ", g, ", parameter ", i, ": the state's '",
                       entry.name, "' has sizes ", tensor.sizes(),
                       ", the parameter ", parameter.sizes());
  }
}

// libtorch 2.x reads a parameter's name with std::stoull, where 1.x wrote the
// address in hex: every "0x..." reads as 0, and all state would land on one
// parameter.
void checkNameReadable(const std::string& name, std::size_t g, std::size_t i) {
  if constexpr (std::is_same_v<torch_compat::StateKey, void*>) {
    const bool decimal =
        !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) != 0;
        });
    DISTALGO_CHECK_ARG(
        decimal, "group ", g, ", parameter ", i, " is named '", name,
        "', as libtorch 1.x names parameters (in hex): libtorch 2.x would "
        "read every such name as 0 and give all parameters one state; save "
        "it again with libtorch 2.x or distalgo");
  }
}

void checkFits(const torch::jit::Module& root,
               const std::vector<std::vector<at::Tensor>>& groups) {
  const auto state = submodule(root, "state");
  const auto saved = submodule(root, "param_groups");
  const auto count = [](const torch::jit::Module& m, const std::string& key) {
    DISTALGO_CHECK_ARG(m.hasattr(key) && m.attr(key).isTensor(), kNotAnArchive,
                       "it has no '", key, "'");
    return static_cast<std::size_t>(m.attr(key).toTensor().item<int64_t>());
  };
  const auto group_count = count(saved, "param_groups/size");
  DISTALGO_CHECK_ARG(group_count == groups.size(), "the state has ",
                     group_count, " parameter groups, this optimizer ",
                     groups.size());
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto group = submodule(saved, "param_groups/" + std::to_string(g));
    const auto size = count(group, "params/size");
    DISTALGO_CHECK_ARG(size == groups[g].size(), "group ", g, " has ", size,
                       " parameters in the state, ", groups[g].size(),
                       " in this optimizer");
    for (std::size_t i = 0; i < size; ++i) {
      const auto key = group.attr("params/" + std::to_string(i));
      checkNameReadable(key.toStringRef(), g, i);
      checkStateSizes(state, key.toStringRef(), groups[g][i], g, i);
    }
  }
}

}  // namespace

std::string writeArchive(const std::vector<ArchiveGroup>& groups,
                         const OptimizerState& state,
                         const std::vector<at::Tensor>& with_state) {
  // The layout of torch::optim::serialize(archive, optimizer), whose
  // templates need the concrete state and options types; the virtual
  // serialize() of each state and options object gives the same entries.
  OutputArchive archive;
  archive.write("pytorch_version", c10::IValue("1.5.0"));
  OutputArchive state_archive(archive.compilation_unit());
  for (const auto& parameter : with_state) {
    const auto found = state.find(stateKey(parameter));
    if (found == state.end()) continue;
    OutputArchive entry(archive.compilation_unit());
    found->second->serialize(entry);
    state_archive.write(torch_compat::archiveKey(parameter), entry);
  }
  archive.write("state", state_archive);

  OutputArchive groups_archive(archive.compilation_unit());
  groups_archive.write("param_groups/size",
                       torch::tensor(static_cast<int64_t>(groups.size())));
  for (std::size_t g = 0; g < groups.size(); ++g) {
    OutputArchive group(archive.compilation_unit());
    const auto& params = groups[g].params;
    group.write("params/size",
                torch::tensor(static_cast<int64_t>(params.size())));
    for (std::size_t i = 0; i < params.size(); ++i) {
      group.write("params/" + std::to_string(i),
                  c10::IValue(torch_compat::archiveKey(params[i])));
    }
    OutputArchive options(archive.compilation_unit());
    groups[g].options->serialize(options);
    group.write("options", options);
    groups_archive.write("param_groups/" + std::to_string(g), group);
  }
  archive.write("param_groups", groups_archive);
  std::ostringstream bytes;
  archive.save_to(bytes);
  return bytes.str();
}

std::string saveOptimizer(const torch::optim::Optimizer& optimizer) {
  OutputArchive archive;
  optimizer.save(archive);
  std::ostringstream bytes;
  archive.save_to(bytes);
  return bytes.str();
}

void loadOptimizer(torch::optim::Optimizer& optimizer, const std::string& bytes,
                   c10::optional<c10::Device> device) {
  auto archive = openArchive(bytes, device);
  try {
    optimizer.load(archive);
  } catch (const c10::Error& e) {
    DISTALGO_CHECK_ARG(false, "libtorch cannot load the optimizer archive: ",
                       e.what_without_backtrace());
  }
}

LoadedPerDevice::LoadedPerDevice(
    const std::vector<at::Tensor>& parameters, const std::string& bytes,
    const std::function<std::unique_ptr<torch::optim::Optimizer>()>& make) {
  std::vector<c10::Device> devices;
  for (const auto& p : parameters) {
    if (std::find(devices.begin(), devices.end(), p.device()) == devices.end())
      devices.push_back(p.device());
  }
  if (devices.empty()) devices.emplace_back(c10::kCPU);
  for (const auto& device : devices) {
    auto optimizer = make();
    loadOptimizer(*optimizer, bytes, device);
    loaded_.emplace_back(device, std::move(optimizer));
  }
}

torch::optim::Optimizer& LoadedPerDevice::of(const at::Tensor& parameter) {
  for (auto& [device, optimizer] : loaded_) {
    if (device == parameter.device()) return *optimizer;
  }
  throw std::logic_error(
      "distalgo::zero: no state was loaded onto the parameter's device");
}

void checkArchiveFits(const std::string& bytes,
                      const std::vector<std::vector<at::Tensor>>& groups) {
  try {
    std::istringstream stream(bytes);
    checkFits(torch::jit::load(stream), groups);
  } catch (const c10::Error& e) {
    DISTALGO_CHECK_ARG(false, kNotAnArchive, e.what_without_backtrace());
  }
}

std::vector<std::unique_ptr<torch::optim::OptimizerOptions>> readGroupOptions(
    const std::string& bytes, const torch::optim::Optimizer& like) {
  auto archive = openArchive(bytes);
  std::vector<std::unique_ptr<torch::optim::OptimizerOptions>> options;
  try {
    InputArchive groups;
    archive.read("param_groups", groups);
    for (std::size_t g = 0; g < like.param_groups().size(); ++g) {
      InputArchive group;
      groups.read("param_groups/" + std::to_string(g), group);
      InputArchive saved;
      group.read("options", saved);
      auto& read =
          options.emplace_back(like.param_groups()[g].options().clone());
      read->serialize(saved);
    }
  } catch (const c10::Error& e) {
    DISTALGO_CHECK_ARG(
        false, "cannot read the groups' options: ", e.what_without_backtrace());
  }
  return options;
}

}  // namespace distalgo::zero::internal
