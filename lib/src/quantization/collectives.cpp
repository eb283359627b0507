#include "distalgo/quantization/collectives.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "distalgo/hooks/bf16_allreduce.h"
#include "distalgo/quantization/auto_quantize.h"
#include "distalgo/quantization/unsupported_collective.h"
#include "hooks/internal/sum_by_chunks.h"
#include "internal/check.h"
#include "quantization/internal/staging.h"

namespace distalgo::quantization {
namespace {

std::string describe(const char* name, const ProcessGroupPtr& pg,
                     DQuantType qtype) {
  return std::string("distalgo::quantization::") + name + " (" +
         std::string(toString(qtype)) + ", backend " + pg->getBackendName() +
         ", rank " + std::to_string(pg->getRank()) + "): ";
}

// Runs `collective` quantized; a backend's "does not support" becomes
// UnsupportedCollective naming this wrapper.
void run(const char* name, const ProcessGroupPtr& pg, DQuantType qtype,
         Collective collective, std::vector<at::Tensor>& outputs,
         std::vector<at::Tensor>& inputs,
         std::optional<double> quant_loss = std::nullopt) {
  try {
    autoQuantize(std::move(collective), qtype, quant_loss)(outputs, inputs);
  } catch (const c10::Error& error) {
    const std::string message = error.what_without_backtrace();
    if (!isUnsupportedCollectiveMessage(message)) throw;
    // A backend's refusal, re-thrown as the type callers can catch to skip.
    throw UnsupportedCollective(
        describe(name, pg, qtype) +
        "the backend does not support a collective it needs: " + message);
  }
}

std::vector<std::int64_t> numelsOf(const std::vector<at::Tensor>& tensors) {
  std::vector<std::int64_t> numels;
  numels.reserve(tensors.size());
  for (const at::Tensor& t : tensors) numels.push_back(t.numel());
  return numels;
}

std::int64_t sumOf(const std::vector<std::int64_t>& numbers) {
  return std::accumulate(numbers.begin(), numbers.end(), std::int64_t{0});
}

// The tensors as one flat tensor, when they lie one after another in one
// storage, contiguous (as autoQuantize's staged tensors do); nothing else.
std::optional<at::Tensor> spanOf(const std::vector<at::Tensor>& tensors) {
  if (tensors.empty()) return std::nullopt;
  const at::Tensor& first = tensors.front();
  std::int64_t numel = 0;
  for (const at::Tensor& t : tensors) {
    if (!t.is_contiguous() || !t.storage().is_alias_of(first.storage()) ||
        t.storage_offset() != first.storage_offset() + numel) {
      return std::nullopt;
    }
    numel += t.numel();
  }
  at::Tensor span = at::empty({0}, first.options());
  span.set_(first.storage(), first.storage_offset(), {numel}, {1});
  return span;
}

void expectWorldSize(const char* name, const ProcessGroupPtr& pg,
                     DQuantType qtype, const char* what, std::size_t size) {
  DISTALGO_CHECK_ARG(size == static_cast<std::size_t>(pg->getSize()),
                     describe(name, pg, qtype), "expected ", pg->getSize(), " ",
                     what, " (one per rank), got ", size);
}

}  // namespace

void allGather(const ProcessGroupPtr& pg, std::vector<at::Tensor>& outputs,
               const at::Tensor& input, DQuantType qtype) {
  expectWorldSize("allGather", pg, qtype, "outputs", outputs.size());
  std::vector<at::Tensor> inputs{input};
  run(
      "allGather", pg, qtype,
      [&pg](std::vector<at::Tensor>& out, std::vector<at::Tensor>& in) {
        std::vector<std::vector<at::Tensor>> lists{out};
        pg->allgather(lists, in)->wait();
      },
      outputs, inputs);
}

void allToAll(const ProcessGroupPtr& pg, std::vector<at::Tensor>& outputs,
              const std::vector<at::Tensor>& inputs, DQuantType qtype) {
  expectWorldSize("allToAll", pg, qtype, "outputs", outputs.size());
  expectWorldSize("allToAll", pg, qtype, "inputs", inputs.size());
  std::vector<at::Tensor> inputs_copy = inputs;
  run(
      "allToAll", pg, qtype,
      [&pg](std::vector<at::Tensor>& out, std::vector<at::Tensor>& in) {
        // Gloo has no list alltoall: the words travel as one flat tensor
        // each way, which autoQuantize's staged tensors already are.
        std::vector<std::int64_t> send_splits = numelsOf(in);
        std::vector<std::int64_t> receive_splits = numelsOf(out);
        const std::optional<at::Tensor> in_span = spanOf(in);
        const std::optional<at::Tensor> out_span = spanOf(out);
        // Staged where the words are: NCCL moves CUDA memory only.
        const c10::Device device = in.empty() ? c10::kCPU : in[0].device();
        auto stage = [&device](internal::StagingSlot slot, std::int64_t n) {
          return device.is_cpu()
                     ? internal::staging(slot, n, at::kHalf)
                     : at::empty({n},
                                 at::TensorOptions(at::kHalf).device(device));
        };
        at::Tensor send;
        if (in_span) {
          send = *in_span;
        } else {
          send = stage(internal::StagingSlot::kSent, sumOf(send_splits));
          std::int64_t sent = 0;
          for (const at::Tensor& t : in) {
            send.narrow(0, sent, t.numel()).copy_(t.reshape(-1));
            sent += t.numel();
          }
        }
        at::Tensor received = out_span ? *out_span
                                       : stage(internal::StagingSlot::kReceived,
                                               sumOf(receive_splits));
        pg->alltoall_base(received, send, receive_splits, send_splits)->wait();
        if (out_span) return;
        std::int64_t offset = 0;
        for (at::Tensor& t : out) {
          t.view(-1).copy_(received.narrow(0, offset, t.numel()));
          offset += t.numel();
        }
      },
      outputs, inputs_copy);
}

void allToAllSingle(const ProcessGroupPtr& pg, at::Tensor& output,
                    const at::Tensor& input, DQuantType qtype,
                    const AllToAllSingleOptions& options) {
  std::vector<at::Tensor> outputs{output};
  std::vector<at::Tensor> inputs{input};
  run(
      "allToAllSingle", pg, qtype,
      [&pg, &options](std::vector<at::Tensor>& out,
                      std::vector<at::Tensor>& in) {
        // alltoall_base takes its split vectors by reference.
        std::vector<std::int64_t> receive_splits = options.output_split_sizes;
        std::vector<std::int64_t> send_splits = options.input_split_sizes;
        pg->alltoall_base(out[0], in[0], receive_splits, send_splits)->wait();
      },
      outputs, inputs, options.quant_loss);
}

void scatter(const ProcessGroupPtr& pg, at::Tensor& output,
             const std::vector<at::Tensor>& inputs, int src, DQuantType qtype) {
  const bool source = pg->getRank() == src;
  if (source) expectWorldSize("scatter", pg, qtype, "inputs", inputs.size());
  std::vector<at::Tensor> outputs{output};
  std::vector<at::Tensor> sent = source ? inputs : std::vector<at::Tensor>{};
  run(
      "scatter", pg, qtype,
      [&pg, src](std::vector<at::Tensor>& out, std::vector<at::Tensor>& in) {
        std::vector<std::vector<at::Tensor>> lists;
        if (!in.empty()) lists.push_back(in);
        c10d::ScatterOptions scatter_options;
        scatter_options.rootRank = src;
        pg->scatter(out, lists, scatter_options)->wait();
      },
      outputs, sent);
}

void allReduce(const ProcessGroupPtr& pg, at::Tensor& tensor,
               DQuantType qtype) {
  std::vector<at::Tensor> outputs{tensor};
  std::vector<at::Tensor> inputs{tensor};
  run(
      "allReduce", pg, qtype,
      [&pg, qtype](std::vector<at::Tensor>& out, std::vector<at::Tensor>& in) {
        if (qtype == DQuantType::BFP16) {
          // The words are bfloat16's: sum them as such.
          hooks::allreduceBf16(pg, in[0].view(at::kBFloat16))->waitAndThrow();
          out[0].copy_(in[0]);
        } else if (hooks::canSumBf16(*pg)) {
          // NCCL sums float16 natively.
          pg->allreduce(in)->wait();
          out[0].copy_(in[0]);
        } else {
          // Summed in float32 and clamped to float16's range once.
          hooks::internal::sumByChunks(pg, in[0], out[0],
                                       internal::kClampedHalfFormat)
              ->waitAndThrow();
        }
      },
      outputs, inputs);
}

}  // namespace distalgo::quantization
