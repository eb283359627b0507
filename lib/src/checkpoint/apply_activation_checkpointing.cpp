#include "distalgo/checkpoint/apply_activation_checkpointing.h"

#include <torch/nn/modules/container/sequential.h>

#include <string>
#include <vector>

#include "distalgo/checkpoint/checkpoint_wrapper.h"
#include "internal/check.h"

namespace distalgo::checkpoint {
namespace {

// A selected module: entry `index` of `parent`, registered as `name`.
struct Match {
  torch::nn::SequentialImpl* parent;
  std::size_t index;
  std::string name;
};

std::size_t indexIn(const torch::nn::SequentialImpl& parent,
                    const torch::nn::Module& child) {
  for (std::size_t i = 0; i < parent.size(); ++i) {
    if (parent.ptr(i).get() == &child) return i;
  }
  DISTALGO_CHECK_STATE(false, "a Sequential's child is none of its entries");
}

// Appends the matches under `module`, descendants before their ancestors.
void collect(torch::nn::Module& module, const std::string& path,
             const std::function<bool(const torch::nn::Module&)>& predicate,
             std::vector<Match>& matches) {
  auto* sequential = dynamic_cast<torch::nn::SequentialImpl*>(&module);
  for (const auto& item : module.named_children()) {
    torch::nn::Module& child = *item.value();
    if (dynamic_cast<CheckpointWrapperImpl*>(&child) != nullptr) continue;
    const std::string child_path =
        path.empty() ? item.key() : path + "." + item.key();
    collect(child, child_path, predicate, matches);
    if (!predicate(child)) continue;
    DISTALGO_CHECK_ARG(sequential != nullptr,
                       "distalgo::checkpoint::applyActivationCheckpointing: "
                       "expected selected modules inside a Sequential, found '",
                       child_path, "' (", child.name(), ") held by a ",
                       module.name(),
                       ", whose forward cannot be redirected to a wrapper");
    matches.push_back({sequential, indexIn(*sequential, child), item.key()});
  }
}

}  // namespace

int applyActivationCheckpointing(
    torch::nn::Module& model,
    const std::function<bool(const torch::nn::Module&)>& predicate,
    const CheckpointOptions& options) {
  std::vector<Match> matches;
  collect(model, "", predicate, matches);
  // Inner matches are wrapped first, so an outer wrapper registers the
  // inner wrappers as its children.
  for (const Match& match : matches) {
    auto entry = match.parent->begin() + match.index;
    CheckpointWrapper wrapper(*entry, options);
    *entry = torch::nn::AnyModule(wrapper);
    match.parent->replace_module(match.name, wrapper.ptr());
  }
  return static_cast<int>(matches.size());
}

}  // namespace distalgo::checkpoint
