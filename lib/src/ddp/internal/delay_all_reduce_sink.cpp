#include "ddp/internal/delay_all_reduce_sink.h"

#include <ATen/core/grad_mode.h>
#include <torch/csrc/autograd/engine.h>
#include <torch/csrc/autograd/function.h>
#include <torch/csrc/autograd/functions/utils.h>

#include <memory>
#include <utility>

#include "torch_compat/autograd_node.h"

namespace distalgo::ddp::internal {
namespace {

class SinkNode : public torch::autograd::Node {
 public:
  SinkNode(c10d::Reducer& reducer, bool delay_all_reduce,
           torch::autograd::edge_list&& next_edges)
      : Node(std::move(next_edges)),
        reducer_(reducer),
        delay_all_reduce_(delay_all_reduce) {}

  std::string name() const override { return "distalgo::ddp::SinkNode"; }

  torch::autograd::variable_list apply(
      torch::autograd::variable_list&& grads) override {
    if (delay_all_reduce_) {
      // A callback, not a call here: the remaining gradients of this backward
      // pass have not been computed yet.
      c10d::Reducer* reducer = &reducer_;
      torch::autograd::Engine::get_default_engine().queue_callback(
          [reducer] { reducer->delay_all_reduce(); });
    }
    return std::move(grads);
  }

 private:
  // DDP owns the reducer and outlives every backward of its outputs.
  c10d::Reducer& reducer_;
  bool delay_all_reduce_;
};

}  // namespace

std::vector<at::Tensor> passThroughSink(
    c10d::Reducer& reducer, bool delay_all_reduce,
    const std::vector<at::Tensor>& outputs) {
  std::vector<std::size_t> tracked;  // indices of outputs with a grad_fn
  torch::autograd::variable_list inputs;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i].defined() && outputs[i].grad_fn()) {
      tracked.push_back(i);
      inputs.push_back(outputs[i]);
    }
  }
  if (inputs.empty()) return outputs;

  torch::autograd::tensor_list clones;
  {
    // As in a custom autograd function, the copies are made without history;
    // wrap_outputs gives them the sink as grad_fn.
    at::AutoGradMode no_grad(false);
    for (const auto& input : inputs) clones.push_back(input.clone());
  }
  auto wrapped = torch::autograd::wrap_outputs(
      inputs, std::move(clones), [&](torch::autograd::edge_list&& edges) {
        return torch_compat::makeNode<SinkNode>(reducer, delay_all_reduce,
                                                std::move(edges));
      });

  std::vector<at::Tensor> result = outputs;
  for (std::size_t i = 0; i < tracked.size(); ++i) {
    result[tracked[i]] = wrapped[i];
  }
  return result;
}

}  // namespace distalgo::ddp::internal
