// The rows of QuantizationCollectives: each collective with each type.

#include <numeric>

#include "collective_case.h"
#include "distalgo/hooks/bf16_allreduce.h"
#include "distalgo/quantization/collectives.h"
#include "fixtures/chunked_sum_bytes.h"

namespace quantcase {
namespace {

namespace q = distalgo::quantization;

// Element counts divisible by 2, 3 and 4, so that the allreduce through
// chunks needs no padding and the bytes halve exactly.
const std::vector<std::int64_t> kShape{12, 10};
const std::vector<std::int64_t> kScatterShape{8, 5};
constexpr std::int64_t kColumns = 6;

std::int64_t numel(at::IntArrayRef sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), std::int64_t{1},
                         std::multiplies<>());
}

std::vector<at::Tensor> allGather(const Group& pg,
                                  std::optional<DQuantType> qtype) {
  const at::Tensor input = rankData(pg->getRank(), 1, kShape);
  std::vector<at::Tensor> outputs(pg->getSize());
  for (at::Tensor& t : outputs) t = at::empty(kShape);
  if (qtype) {
    q::allGather(pg, outputs, input, *qtype);
  } else {
    std::vector<std::vector<at::Tensor>> lists{outputs};
    std::vector<at::Tensor> inputs{input};
    pg->allgather(lists, inputs)->wait();
  }
  return outputs;
}

// Rows this rank sends to rank `to`, and receives from it: uneven.
std::int64_t rowsBetween(int rank, int to) { return rank + to + 1; }

std::int64_t rowsSent(const Group& pg) {
  std::int64_t rows = 0;
  for (int r = 0; r < pg->getSize(); ++r) rows += rowsBetween(pg->getRank(), r);
  return rows;
}

std::vector<at::Tensor> allToAll(const Group& pg,
                                 std::optional<DQuantType> qtype) {
  std::vector<at::Tensor> inputs;
  std::vector<at::Tensor> outputs;
  for (int r = 0; r < pg->getSize(); ++r) {
    const std::vector<std::int64_t> sizes{rowsBetween(pg->getRank(), r),
                                          kColumns};
    inputs.push_back(rankData(pg->getRank(), 100 + r, sizes));
    outputs.push_back(at::empty(sizes));
  }
  if (qtype) {
    q::allToAll(pg, outputs, inputs, *qtype);
    return outputs;
  }
  // The exact list all_to_all, as one float32 alltoall_base: Gloo has no
  // list alltoall.
  std::vector<std::int64_t> splits;
  for (const at::Tensor& t : inputs) splits.push_back(t.numel());
  at::Tensor send = at::cat(inputs).view(-1);
  at::Tensor received = at::empty_like(send);
  std::vector<std::int64_t> receive_splits = splits;
  pg->alltoall_base(received, send, receive_splits, splits)->wait();
  std::int64_t offset = 0;
  for (at::Tensor& t : outputs) {
    t.view(-1).copy_(received.narrow(0, offset, t.numel()));
    offset += t.numel();
  }
  return outputs;
}

std::vector<at::Tensor> allToAllSingle(const Group& pg,
                                       std::optional<DQuantType> qtype) {
  std::vector<std::int64_t> splits;
  for (int r = 0; r < pg->getSize(); ++r) {
    splits.push_back(rowsBetween(pg->getRank(), r));
  }
  const at::Tensor input = rankData(pg->getRank(), 2, {rowsSent(pg), kColumns});
  at::Tensor output = at::empty_like(input);
  if (qtype) {
    q::allToAllSingle(
        pg, output, input, *qtype,
        {.output_split_sizes = splits, .input_split_sizes = splits});
  } else {
    std::vector<std::int64_t> receive_splits = splits;
    at::Tensor send = input;
    pg->alltoall_base(output, send, receive_splits, splits)->wait();
  }
  return {output};
}

int scatterSource(const Group& pg) { return pg->getSize() - 1; }

std::vector<at::Tensor> scatter(const Group& pg,
                                std::optional<DQuantType> qtype) {
  const int src = scatterSource(pg);
  std::vector<at::Tensor> inputs;
  if (pg->getRank() == src) {
    for (int r = 0; r < pg->getSize(); ++r) {
      inputs.push_back(rankData(src, 200 + r, kScatterShape));
    }
  }
  at::Tensor output = at::empty(kScatterShape);
  if (qtype) {
    q::scatter(pg, output, inputs, src, *qtype);
  } else {
    std::vector<at::Tensor> outputs{output};
    std::vector<std::vector<at::Tensor>> lists;
    if (!inputs.empty()) lists.push_back(inputs);
    c10d::ScatterOptions options;
    options.rootRank = src;
    pg->scatter(outputs, lists, options)->wait();
  }
  return {output};
}

std::vector<at::Tensor> allReduce(const Group& pg,
                                  std::optional<DQuantType> qtype) {
  at::Tensor tensor = rankData(pg->getRank(), 3, kShape);
  if (qtype) {
    q::allReduce(pg, tensor, *qtype);
  } else {
    std::vector<at::Tensor> tensors{tensor};
    pg->allreduce(tensors)->wait();
  }
  return {tensor};
}

std::vector<at::Tensor> allReduceMagnitudes(int world) {
  at::Tensor sum = at::zeros(kShape);
  for (int r = 0; r < world; ++r) sum += rankData(r, 3, kShape).abs();
  return {sum};
}

Bytes allReduceBytes(const Group& pg, DQuantType qtype) {
  const std::int64_t n = numel(kShape);
  if (distalgo::hooks::canSumBf16(*pg)) return {{"allreduce", 2 * n}};
  return {
      {"send", fixtures::chunkedSumSendBytes(n, pg->getSize(), pg->getRank())}};
}

std::vector<CollectiveCase> rows() {
  std::vector<CollectiveCase> rows;
  for (DQuantType qtype : {DQuantType::FP16, DQuantType::BFP16}) {
    const std::string suffix = "_" + std::string(q::toString(qtype));
    rows.push_back({.name = "all_gather" + suffix,
                    .qtype = qtype,
                    .run = allGather,
                    .quantized_bytes = [](const Group&) -> Bytes {
                      return {{"allgather", 2 * numel(kShape)}};
                    }});
    rows.push_back({.name = "all_to_all" + suffix,
                    .qtype = qtype,
                    .run = allToAll,
                    .quantized_bytes = [](const Group& pg) -> Bytes {
                      return {{"alltoall_base", 2 * kColumns * rowsSent(pg)}};
                    }});
    rows.push_back({.name = "all_to_all_single" + suffix,
                    .qtype = qtype,
                    .run = allToAllSingle,
                    .quantized_bytes = [](const Group& pg) -> Bytes {
                      return {{"alltoall_base", 2 * kColumns * rowsSent(pg)}};
                    }});
    rows.push_back({.name = "scatter" + suffix,
                    .qtype = qtype,
                    .run = scatter,
                    .quantized_bytes = [](const Group& pg) -> Bytes {
                      if (pg->getRank() != scatterSource(pg)) return {};
                      return {{"scatter", std::int64_t{2} * pg->getSize() *
                                              numel(kScatterShape)}};
                    }});
    rows.push_back({.name = "all_reduce" + suffix,
                    .qtype = qtype,
                    .run = allReduce,
                    .magnitudes = allReduceMagnitudes,
                    .quantized_bytes = [qtype](const Group& pg) {
                      return allReduceBytes(pg, qtype);
                    }});
  }
  return rows;
}

RANKTEST_INSTANTIATE_P(QuantizationCollectives, rows());

}  // namespace
}  // namespace quantcase
