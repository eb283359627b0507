#include "distalgo/hooks/quantization.h"

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

#include <cstddef>
#include <exception>
#include <functional>
#include <vector>

#include "distalgo/hooks/internal/quantize.h"
#include "hooks/internal/exchange.h"
#include "hooks/internal/reduced_future.h"
#include "internal/check.h"

namespace distalgo::hooks {
namespace {

using Group = c10::intrusive_ptr<c10d::ProcessGroup>;
using internal::QuantParams;

// The point-to-point tag of the quantized rows.
constexpr int kRowsTag = 0x51;

struct Gathered {
  c10::intrusive_ptr<c10d::Work> work;
  std::vector<at::Tensor> per_rank;  // filled once work completes
};

// Allgathers into one output tensor per rank, which every backend accepts
// (PyTorch's per-channel hook indexes the result as one stacked tensor,
// which only NCCL returns).
Gathered allgather(const Group& pg, const at::Tensor& input) {
  std::vector<at::Tensor> inputs{input.contiguous()};
  std::vector<std::vector<at::Tensor>> outputs(1);
  for (int r = 0; r < pg->getSize(); ++r) {
    outputs[0].push_back(at::empty_like(inputs[0]));
  }
  auto work = pg->allgather(outputs, inputs);
  return {work, outputs[0]};
}

// The shared flow of both hooks. `params` are this rank's qparams with one
// entry per row of `rows` (a 0-dimensional pair per tensor); `finish` turns
// the averaged rows into the bucket's shape. The qparams' allgather
// completes before the rows move (on Gloo, the rows too: its future is
// complete), so every rank issues them in the order the reducer calls the
// hook.
c10::intrusive_ptr<c10::ivalue::Future> quantizeAndAverage(
    const Group& pg, const at::Tensor& rows, const QuantParams& params,
    std::function<at::Tensor(const at::Tensor&)> finish) {
  const bool per_row = params.scale.dim() == 1;
  auto unsqueeze = [per_row](const at::Tensor& t) {
    return per_row ? t.unsqueeze(1) : t;
  };
  Gathered params_of =
      allgather(pg, at::stack({params.scale, params.zero_point}));
  params_of.work->wait();
  const at::Tensor own = params_of.per_rank[pg->getRank()];
  const at::Tensor quantized =
      internal::quantize(rows, unsqueeze(own[0]), unsqueeze(own[1]));
  const int world = pg->getSize();
  auto average = [qparams = params_of.per_rank, world, unsqueeze,
                  finish =
                      std::move(finish)](const std::vector<at::Tensor>& data) {
    at::Tensor sum =
        at::zeros(data[0].sizes(), data[0].options().dtype(at::kFloat));
    for (int r = 0; r < world; ++r) {
      internal::accumulateDequantized(sum, data[r], unsqueeze(qparams[r][0]),
                                      unsqueeze(qparams[r][1]));
    }
    return finish(sum / world);
  };
  if (pg->getBackendName() == "nccl") {
    Gathered data_of = allgather(pg, quantized);
    return data_of.work->getFuture()->then(
        [data = data_of.per_rank, average](c10::ivalue::Future& done) {
          // Future::then runs this on failure too; the error must carry on.
          if (done.hasError()) std::rethrow_exception(done.exception_ptr());
          return c10::IValue(average(data));
        },
        c10::TensorType::get());
  }
  // Elsewhere (Gloo) as point-to-point messages, both ways at once
  // (exchange.h).
  std::vector<at::Tensor> data(world);
  for (int r = 0; r < world; ++r) {
    data[r] = r == pg->getRank() ? quantized : at::empty_like(quantized);
  }
  internal::exchange(*pg, std::vector<at::Tensor>(world, quantized), data,
                     kRowsTag);
  return internal::completedFuture(average(data));
}

}  // namespace

ddp::CommHook quantizationPerTensorHook(Group pg) {
  DISTALGO_CHECK_ARG(pg,
                     "quantizationPerTensorHook: expected a process group, "
                     "got null");
  return [pg = std::move(pg)](ddp::GradBucket& bucket) {
    const at::Tensor& buffer = bucket.buffer();
    if (buffer.numel() == 0) return internal::completedFuture(buffer);
    return quantizeAndAverage(
        pg, buffer, internal::minMaxParams(buffer),
        [dtype = buffer.scalar_type()](const at::Tensor& mean) {
          return mean.to(dtype);
        });
  };
}

ddp::CommHook quantizationPerChannelHook(Group pg, std::int64_t bucket_size) {
  DISTALGO_CHECK_ARG(pg,
                     "quantizationPerChannelHook: expected a process "
                     "group, got null");
  DISTALGO_CHECK_ARG(
      bucket_size >= 1,
      "quantizationPerChannelHook: bucket_size must be at least 1, got ",
      bucket_size);
  return [pg = std::move(pg), bucket_size](ddp::GradBucket& bucket) {
    const at::Tensor& buffer = bucket.buffer();
    const std::int64_t n = buffer.numel();
    if (n == 0) return internal::completedFuture(buffer);
    // PyTorch pads by bucket_size - n % bucket_size: a whole row of zeros
    // when n is a multiple of bucket_size.
    const std::int64_t padding = bucket_size - n % bucket_size;
    const at::Tensor rows =
        at::constant_pad_nd(buffer.reshape(-1), {0, padding})
            .view({-1, bucket_size});
    return quantizeAndAverage(
        pg, rows, internal::perRowMinMaxParams(rows),
        [n, dtype = buffer.scalar_type(),
         sizes = buffer.sizes().vec()](const at::Tensor& mean) {
          return mean.reshape(-1).narrow(0, 0, n).to(dtype).view(sizes);
        });
  };
}

}  // namespace distalgo::hooks
