#include "distalgo/checkpoint/checkpoint_wrapper.h"

#include <utility>

namespace distalgo::checkpoint {

namespace {

// Calls a Sequential with one tensor; AnyModule can hold this.
class SequentialCallImpl : public torch::nn::Module {
 public:
  explicit SequentialCallImpl(torch::nn::Sequential sequential)
      : sequential_(std::move(sequential)) {}
  at::Tensor forward(const at::Tensor& input) {
    return sequential_->forward(input);
  }

 private:
  torch::nn::Sequential sequential_;
};
TORCH_MODULE(SequentialCall);

}  // namespace

CheckpointWrapperImpl::CheckpointWrapperImpl(const torch::nn::AnyModule& module,
                                             CheckpointOptions options)
    : CheckpointWrapperImpl(module, module.ptr(), options) {}

CheckpointWrapperImpl::CheckpointWrapperImpl(torch::nn::Sequential sequential,
                                             CheckpointOptions options)
    : CheckpointWrapperImpl(torch::nn::AnyModule(SequentialCall(sequential)),
                            sequential.ptr(), options) {}

CheckpointWrapperImpl::CheckpointWrapperImpl(
    torch::nn::AnyModule callable, std::shared_ptr<torch::nn::Module> inner,
    CheckpointOptions options)
    : module_(std::move(callable)),
      inner_(std::move(inner)),
      options_(options) {
  for (const auto& child : inner_->named_children()) {
    register_module(child.key(), child.value());
  }
  for (const auto& parameter : inner_->named_parameters(/*recurse=*/false)) {
    register_parameter(parameter.key(), parameter.value(),
                       parameter.value().requires_grad());
  }
  for (const auto& buffer : inner_->named_buffers(/*recurse=*/false)) {
    register_buffer(buffer.key(), buffer.value());
  }
}

at::Tensor CheckpointWrapperImpl::forward(const at::Tensor& input) {
  return call(input);
}

void CheckpointWrapperImpl::train(bool on) {
  torch::nn::Module::train(on);
  inner_->train(on);
}

void CheckpointWrapperImpl::pretty_print(std::ostream& stream) const {
  stream << "distalgo::checkpoint::CheckpointWrapper(";
  inner_->pretty_print(stream);
  stream << ")";
}

at::Tensor CheckpointWrapperImpl::runCheckpointed(
    Recompute run, const std::vector<at::Tensor>& inputs) {
  return checkpoint(std::move(run), inputs, inner_->parameters(), options_)
      .at(0);
}

}  // namespace distalgo::checkpoint
