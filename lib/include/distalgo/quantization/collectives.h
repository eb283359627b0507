#pragma once

// Quantized collectives over a c10d process group, ready to call: each is
// autoQuantize around one c10d collective. They block until the results are
// in the outputs, which are float32 or any floating dtype.
//
// Bytes each rank puts in (what ranktest::CountingProcessGroup counts), for
// inputs of n elements: half of the exact collective's float32 bytes.
//   allGather       allgather of 2n
//   allToAll        alltoall_base of 2n (n: all its inputs together)
//   allToAllSingle  alltoall_base of 2n
//   scatter         scatter of 2n at the source (n: all its inputs), none
//                   elsewhere
//   allReduce       on NCCL: allreduce of 2n. Elsewhere (Gloo, which
//                   cannot sum bfloat16 and sums float16 one element at a
//                   time) the hooks::allreduceBf16 scheme for both types:
//                   point-to-point sends, 4 (W - 1) n bytes over all
//                   ranks (bf16_allreduce.h gives each rank's)
//
// Results: allGather, allToAll, allToAllSingle and scatter move values
// without arithmetic, so each result is exactly dequantize(quantize(x)) of
// the sender's x (codec.h states the error). allReduce sums:
//   FP16   on Gloo in float32 and rounded once to float16, a sum beyond
//          +-65504 clamped to it; on NCCL in float16, each partial sum
//          rounded (a sum beyond +-65504 becomes +-inf): within
//          W 2^-11 sum_r |x_r| of the exact sum.
//   BFP16  on Gloo in float32 and rounded once to bfloat16 (to nearest
//          even), on NCCL in bfloat16: within W 2^-8 sum_r |x_r|.
// PyTorch's auto_quantize refuses all_reduce and scatter; they are ours.
// Where a backend lacks a collective these throw UnsupportedCollective
// (unsupported_collective.h).

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <optional>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

#include "distalgo/quantization/dquant_type.h"

namespace distalgo::quantization {

using ProcessGroupPtr = c10::intrusive_ptr<c10d::ProcessGroup>;

// outputs[r] receives rank r's `input` (all_gather); W outputs of its shape.
void allGather(const ProcessGroupPtr& pg, std::vector<at::Tensor>& outputs,
               const at::Tensor& input, DQuantType qtype);

// inputs[r] goes to rank r and outputs[r] receives rank r's tensor for this
// rank (all_to_all); sizes may differ. Gloo 1.13 has no list alltoall, so
// this is one alltoall_base over the flattened, concatenated inputs on every
// backend.
void allToAll(const ProcessGroupPtr& pg, std::vector<at::Tensor>& outputs,
              const std::vector<at::Tensor>& inputs, DQuantType qtype);

struct AllToAllSingleOptions {
  // Rows (along dimension 0) received from each rank; empty: equal parts.
  std::vector<std::int64_t> output_split_sizes;
  // Rows sent to each rank; empty: equal parts.
  std::vector<std::int64_t> input_split_sizes;
  // Divides the results, as PyTorch's quant_loss.
  std::optional<double> quant_loss;
};

// all_to_all_single: `input`'s row blocks go to the ranks in order and
// `output` receives theirs.
void allToAllSingle(const ProcessGroupPtr& pg, at::Tensor& output,
                    const at::Tensor& input, DQuantType qtype,
                    const AllToAllSingleOptions& options = {});

// Rank `src`'s inputs[r] to rank r's `output` (scatter); `inputs` is read on
// `src` only (W tensors of output's shape) and may be empty elsewhere. The
// collective that PyTorch's quantization change log calls "allscatter".
void scatter(const ProcessGroupPtr& pg, at::Tensor& output,
             const std::vector<at::Tensor>& inputs, int src, DQuantType qtype);

// Sums `tensor` over the ranks in place (all_reduce with SUM).
void allReduce(const ProcessGroupPtr& pg, at::Tensor& tensor, DQuantType qtype);

}  // namespace distalgo::quantization
