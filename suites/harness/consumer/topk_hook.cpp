#include "topk_hook.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

namespace consumer {

std::int64_t topKCount(std::int64_t numel, double ratio) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(ratio * numel));
}

namespace {

// Each rank's `local` tensor, gathered.
std::vector<at::Tensor> allgather(c10d::ProcessGroup& pg,
                                  const at::Tensor& local) {
  std::vector<at::Tensor> inputs{local};
  std::vector<std::vector<at::Tensor>> outputs(1);
  for (int r = 0; r < pg.getSize(); ++r) {
    outputs[0].push_back(at::empty_like(local));
  }
  pg.allgather(outputs, inputs)->wait();
  return outputs[0];
}

}  // namespace

distalgo::ddp::CommHook topKHook(c10::intrusive_ptr<c10d::ProcessGroup> pg,
                                 double ratio) {
  // What each bucket left out, by bucket index.
  auto residuals = std::make_shared<std::map<std::size_t, at::Tensor>>();
  return [pg, ratio, residuals](distalgo::ddp::GradBucket& bucket) {
    at::Tensor& residual = (*residuals)[bucket.index()];
    // DDP rebuilds its buckets after the first step: an index may then
    // stand for other gradients.
    if (residual.defined() && residual.numel() != bucket.buffer().numel()) {
      residual = at::Tensor();
    }
    const at::Tensor corrected =
        residual.defined() ? bucket.buffer() + residual : bucket.buffer();
    const auto k = topKCount(corrected.numel(), ratio);
    const at::Tensor indices = std::get<1>(corrected.abs().topk(k));
    residual = corrected.clone().index_fill_(0, indices, 0);
    const auto values = allgather(*pg, corrected.index_select(0, indices));
    const auto positions = allgather(*pg, indices);
    at::Tensor sum = at::zeros_like(corrected);
    for (std::size_t r = 0; r < values.size(); ++r) {
      sum.index_add_(0, positions[r], values[r]);
    }
    sum.div_(pg->getSize());
    auto future =
        c10::make_intrusive<c10::ivalue::Future>(c10::TensorType::get());
    future->markCompleted(sum);
    return future;
  };
}

}  // namespace consumer
