#include "distalgo/ddp/distributed_data_parallel.h"

namespace distalgo::ddp {

void zeroGradients(torch::nn::Module& module) {
  for (at::Tensor& parameter : module.parameters()) {
    if (parameter.grad().defined()) parameter.mutable_grad().zero_();
  }
}

}  // namespace distalgo::ddp
