#include "distalgo/checkpoint/checkpoint.h"

#include <ATen/Context.h>
#include <ATen/core/ivalue.h>
#include <torch/csrc/autograd/autograd.h>
#include <torch/csrc/autograd/custom_function.h>
#include <torch/csrc/autograd/grad_mode.h>

#include <unordered_set>
#include <utility>

#include "checkpoint/internal/rng_state.h"
#include "distalgo/checkpoint/internal/saved_inputs.h"
#include "torch_compat/autocast.h"

namespace distalgo::checkpoint {
namespace {

using torch::autograd::AutogradContext;
using torch::autograd::variable_list;

// What backward needs besides the saved tensors; rides in the context as a
// capsule because saved_data holds IValues only. Undefined inputs (absent
// optional tensors) cannot enter an autograd node: the node's tensors are
// the defined inputs, then the parameters.
struct State : torch::CustomClassHolder {
  Recompute run;
  CheckpointOptions options;
  std::size_t num_inputs = 0;          // run's, defined or not
  std::vector<std::size_t> positions;  // each defined input's, in run's
  std::vector<c10::Device> devices;    // each defined input's
  std::vector<bool> requires_grad;     // each defined input's
  internal::RngState rng;
  torch_compat::AutocastState autocast;  // the forward's
};

const char kState[] = "distalgo_checkpoint_state";

at::Tensor offloaded(const at::Tensor& t) {
  if (t.device().is_cpu()) return t;
  at::Tensor cpu = t.detach().to(at::kCPU);
  return at::globalContext().hasCUDA() ? cpu.pin_memory() : cpu;
}

c10::intrusive_ptr<State> stateOf(AutogradContext* ctx) {
  return c10::static_intrusive_pointer_cast<State>(
      ctx->saved_data.at(kState).toCapsule());
}

// run()'s inputs again from the saved tensors: on their devices, as fresh
// leaves that require grad where the originals did.
std::vector<at::Tensor> restoredInputs(const State& state,
                                       const variable_list& saved) {
  std::vector<at::Tensor> inputs(state.num_inputs);
  for (std::size_t j = 0; j < state.positions.size(); ++j) {
    at::Tensor input = saved[j].to(state.devices[j]).detach();
    inputs[state.positions[j]] = input.requires_grad_(state.requires_grad[j]);
  }
  return inputs;
}

// run() again with grad on, from the forward's random state, under the
// forward's autocast state (PyTorch's checkpoint re-enters both): backward
// runs where autocast is off, and a recompute in float32 would differ.
variable_list recompute(const State& state,
                        const std::vector<at::Tensor>& inputs) {
  c10::optional<internal::ReplayedRng> replay;
  if (state.options.preserve_rng_state)
    replay.emplace(state.rng, state.devices);
  at::AutoGradMode enable_grad(true);
  torch_compat::AutocastStateGuard autocast(state.autocast);
  return state.run(inputs);
}

// The node's inputs: its tensors (State), then the state (not a tensor).
struct CheckpointFunction : torch::autograd::Function<CheckpointFunction> {
  static variable_list forward(AutogradContext* ctx, at::TensorList tensors,
                               const c10::intrusive_ptr<State>& state) {
    const std::size_t k = state->positions.size();
    std::vector<at::Tensor> inputs(state->num_inputs);
    std::vector<at::Tensor> kept;
    for (std::size_t j = 0; j < k; ++j) {
      const at::Tensor& input = tensors[j];
      inputs[state->positions[j]] = input;
      state->devices.push_back(input.device());
      state->requires_grad.push_back(input.requires_grad());
      kept.push_back(state->options.offload_to_cpu ? offloaded(input) : input);
    }
    kept.insert(kept.end(), tensors.begin() + k, tensors.end());
    ctx->save_for_backward(kept);
    if (state->options.preserve_rng_state) {
      state->rng = internal::RngState::capture(state->devices);
    }
    state->autocast = torch_compat::autocastState();
    variable_list outputs = state->run(inputs);
    ctx->saved_data[kState] = at::IValue::make_capsule(state);
    return outputs;
  }

  static variable_list backward(AutogradContext* ctx,
                                variable_list grad_outputs) {
    const c10::intrusive_ptr<State> state = stateOf(ctx);
    const variable_list saved = ctx->get_saved_variables();
    const std::size_t k = state->positions.size();
    const std::vector<at::Tensor> inputs = restoredInputs(*state, saved);
    const variable_list outputs = recompute(*state, inputs);
    // Differentiate with respect to what requires grad; slot i of the result
    // belongs to tensor i of forward's `tensors`.
    variable_list targets;
    std::vector<std::size_t> slots;
    for (std::size_t i = 0; i < saved.size(); ++i) {
      const at::Tensor& target = i < k ? inputs[state->positions[i]] : saved[i];
      if (!target.requires_grad()) continue;
      targets.push_back(target);
      slots.push_back(i);
    }
    variable_list roots, root_grads;
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      if (!outputs[o].requires_grad() || !grad_outputs[o].defined()) continue;
      roots.push_back(outputs[o]);
      root_grads.push_back(grad_outputs[o]);
    }
    variable_list result(saved.size() + 1);
    if (roots.empty() || targets.empty()) return result;
    const variable_list grads = torch::autograd::grad(
        roots, targets, root_grads, /*retain_graph=*/false,
        /*create_graph=*/false, /*allow_unused=*/true);
    for (std::size_t t = 0; t < grads.size(); ++t) result[slots[t]] = grads[t];
    return result;
  }
};

// The parameters that need gradients, each once (a shared parameter listed
// twice would get its gradient twice).
std::vector<at::Tensor> trainable(const std::vector<at::Tensor>& parameters) {
  std::vector<at::Tensor> out;
  std::unordered_set<const c10::TensorImpl*> seen;
  for (const at::Tensor& p : parameters) {
    if (p.defined() && p.requires_grad() &&
        seen.insert(p.unsafeGetTensorImpl()).second) {
      out.push_back(p);
    }
  }
  return out;
}

}  // namespace

std::vector<at::Tensor> checkpoint(Recompute run,
                                   const std::vector<at::Tensor>& inputs,
                                   const std::vector<at::Tensor>& parameters,
                                   const CheckpointOptions& options) {
  if (!at::GradMode::is_enabled()) return run(inputs);
  auto state = c10::make_intrusive<State>();
  state->run = std::move(run);
  state->options = options;
  state->num_inputs = inputs.size();
  std::vector<at::Tensor> tensors;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined()) continue;
    tensors.push_back(inputs[i]);
    state->positions.push_back(i);
  }
  for (at::Tensor& p : trainable(parameters)) tensors.push_back(std::move(p));
  return CheckpointFunction::apply(at::TensorList(tensors), std::move(state));
}

namespace internal {

std::vector<at::Tensor> savedInputs(const at::Tensor& output) {
  using Node = torch::autograd::CppNode<CheckpointFunction>;
  auto* node = dynamic_cast<Node*>(output.grad_fn().get());
  if (node == nullptr || !node->ctx_.saved_data.count(kState)) return {};
  const std::size_t n = stateOf(&node->ctx_)->positions.size();
  variable_list saved;
  try {
    saved = node->ctx_.get_saved_variables();
  } catch (const c10::Error&) {
    return {};  // released by a backward
  }
  return {saved.begin(), saved.begin() + n};
}

}  // namespace internal
}  // namespace distalgo::checkpoint
