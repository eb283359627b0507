#include "quantization/calls.h"

#include <ATen/ATen.h>

#include "distalgo/quantization/collectives.h"

namespace quant_bench {
namespace {

namespace q = distalgo::quantization;

Call allGather(const Group& pg, std::int64_t numel,
               std::optional<DQuantType> qtype) {
  at::Tensor input = at::randn({numel});
  std::vector<at::Tensor> outputs;
  for (int r = 0; r < pg->getSize(); ++r) outputs.push_back(at::empty({numel}));
  if (qtype) {
    return Call{[=]() mutable { q::allGather(pg, outputs, input, *qtype); }};
  }
  return Call{[=]() mutable {
    std::vector<std::vector<at::Tensor>> lists{outputs};
    std::vector<at::Tensor> inputs{input};
    pg->allgather(lists, inputs)->wait();
  }};
}

// Equal parts of numel / W elements to every rank.
std::vector<at::Tensor> parts(const Group& pg, std::int64_t numel) {
  std::vector<at::Tensor> out;
  for (int r = 0; r < pg->getSize(); ++r) {
    out.push_back(at::randn({numel / pg->getSize()}));
  }
  return out;
}

Call allToAll(const Group& pg, std::int64_t numel,
              std::optional<DQuantType> qtype) {
  std::vector<at::Tensor> inputs = parts(pg, numel);
  std::vector<at::Tensor> outputs = parts(pg, numel);
  if (qtype) {
    return Call{[=]() mutable { q::allToAll(pg, outputs, inputs, *qtype); }};
  }
  // Exact: Gloo has no list alltoall; the same alltoall_base in float32.
  at::Tensor send = at::cat(inputs);
  at::Tensor received = at::empty_like(send);
  return Call{[=]() mutable {
    std::vector<std::int64_t> splits;  // equal parts
    std::vector<std::int64_t> receive_splits;
    pg->alltoall_base(received, send, receive_splits, splits)->wait();
  }};
}

Call allToAllSingle(const Group& pg, std::int64_t numel,
                    std::optional<DQuantType> qtype) {
  at::Tensor input = at::randn({numel});
  at::Tensor output = at::empty({numel});
  if (qtype) {
    return Call{
        [=]() mutable { q::allToAllSingle(pg, output, input, *qtype); }};
  }
  return Call{[=]() mutable {
    std::vector<std::int64_t> splits, receive_splits;
    pg->alltoall_base(output, input, receive_splits, splits)->wait();
  }};
}

Call scatter(const Group& pg, std::int64_t numel,
             std::optional<DQuantType> qtype) {
  std::vector<at::Tensor> inputs;
  if (pg->getRank() == 0) inputs = parts(pg, numel);
  at::Tensor output = at::empty({numel / pg->getSize()});
  if (qtype) {
    return Call{[=]() mutable { q::scatter(pg, output, inputs, 0, *qtype); }};
  }
  return Call{[=]() mutable {
    std::vector<at::Tensor> outputs{output};
    std::vector<std::vector<at::Tensor>> lists;
    if (!inputs.empty()) lists.push_back(inputs);
    pg->scatter(outputs, lists, {})->wait();
  }};
}

Call allReduce(const Group& pg, std::int64_t numel,
               std::optional<DQuantType> qtype) {
  const at::Tensor source = at::randn({numel});
  at::Tensor tensor = source.clone();
  // The sum overwrites the tensor; every call starts from the same values.
  auto reset = [=]() mutable { tensor.copy_(source); };
  if (qtype) {
    return Call{[=]() mutable { q::allReduce(pg, tensor, *qtype); }, reset};
  }
  return Call{[=]() mutable {
                std::vector<at::Tensor> tensors{tensor};
                pg->allreduce(tensors)->wait();
              },
              reset};
}

}  // namespace

const std::vector<CollectiveRow>& collectiveRows() {
  static const std::vector<CollectiveRow> rows = {
      {"all_gather", allGather},
      {"all_to_all", allToAll},
      {"all_to_all_single", allToAllSingle},
      {"scatter", scatter},
      {"all_reduce", allReduce},
  };
  return rows;
}

std::string modeName(std::optional<DQuantType> qtype) {
  return qtype ? std::string(distalgo::quantization::toString(*qtype))
               : "exact";
}

}  // namespace quant_bench
