#pragma once

// How the allreduce-based hooks sum a 16-bit bucket (float16 or bfloat16)
// over a backend that would sum it element by element in 16-bit arithmetic
// (Gloo): every partial sum then rounds to 16 bits, so at 3 or more ranks
// the result depends on the order and differs from the exact sum in the
// last bits.

namespace distalgo::hooks {

enum class HalfSum {
  // The default: summed in float32 and rounded to 16 bits once
  // (allreduceBf16's point-to-point scheme, bf16_allreduce.h): the sum a
  // float32 allreduce would round, at half its bytes, and faster on Gloo
  // than its own 16-bit sum. Where the backend sums 16-bit tensors itself in
  // wider arithmetic (NCCL), its allreduce.
  kFloat32Once,
  // PyTorch's arithmetic: the backend's own allreduce of the 16-bit tensor,
  // whatever it rounds; a pipeline moved from Python gets PyTorch's numbers
  // bit for bit. A backend that cannot sum the type (Gloo of libtorch 1.13
  // and bfloat16) refuses, as it does in PyTorch.
  kBackend,
};

}  // namespace distalgo::hooks
