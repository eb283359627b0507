#pragma once

// Activation checkpointing as a function (torch.utils.checkpoint.checkpoint,
// reentrant): runs a computation without keeping its intermediate
// activations, keeps only its inputs, and recomputes it during backward.
//
// Only the reentrant implementation exists. PyTorch's NO_REENTRANT (and its
// save_on_cpu offload) rely on saved-tensor default hooks. In libtorch 1.13
// their thread-local stack (ATen/SavedTensorHooks.h) holds PyObject pairs,
// and SavedVariable::get_default_hooks() asks
// Engine::get_default_engine().get_default_saved_variable_hooks(), which the
// C++ engine answers with null; only an engine subclass installed for the
// whole process with set_default_engine_stub (as the Python bindings install
// theirs) could answer, and a library cannot take over the process's
// autograd engine. So offload here keeps the *inputs* on the CPU and
// recomputes (FairScale's scheme).
//
// Unlike PyTorch's reentrant checkpoint, the parameters are inputs of the
// autograd node: their gradients leave the node as its outputs and reach
// each AccumulateGrad once, from the outer backward (so DDP's reducer hooks
// fire once per parameter), and torch::autograd::grad works through it.
//
// Example:
//   auto outputs = distalgo::checkpoint::checkpoint(
//       [&](const std::vector<at::Tensor>& in) {
//         return std::vector<at::Tensor>{block->forward(in[0])};
//       },
//       {x}, block->parameters());

#include <ATen/core/Tensor.h>

#include <functional>
#include <vector>

namespace distalgo::checkpoint {

struct CheckpointOptions {
  // Keep the saved inputs on the CPU (pinned where CUDA exists); they return
  // to their devices for the recomputation.
  bool offload_to_cpu = false;
  // Replay the forward's random-number state (the CPU generator and those of
  // the inputs' CUDA devices) during recomputation, so that dropout draws
  // the same masks.
  bool preserve_rng_state = true;
};

// The computation to checkpoint: inputs to outputs. It runs twice (forward
// without grad, backward with grad) and must compute the same both times.
using Recompute =
    std::function<std::vector<at::Tensor>(const std::vector<at::Tensor>&)>;

// Runs `run(inputs)` and returns its outputs, attached to one autograd node
// whose backward recomputes `run` and differentiates it with respect to the
// inputs and `parameters` (the tensors `run` reads besides its inputs; those
// that do not require grad are ignored). With grad mode off, simply runs it.
// Double backward (create_graph) is not supported.
std::vector<at::Tensor> checkpoint(Recompute run,
                                   const std::vector<at::Tensor>& inputs,
                                   const std::vector<at::Tensor>& parameters,
                                   const CheckpointOptions& options = {});

}  // namespace distalgo::checkpoint
