#pragma once

// Moving one tensor to each other rank and one from each, as point-to-point
// messages: every receive is posted before any send. On a link, Gloo's own
// alltoall and allgather move a large message each way at about half the
// link's speed when both ways are busy; posted this way both ways run at
// once (bench/results/link.md).

#include <ATen/core/Tensor.h>

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

namespace distalgo::hooks::internal {

// Sends to[r] to every rank r but this one and receives from[r] from it (both
// indexed by rank, contiguous; this rank's entries are not used), with
// `tag`; returns once all have moved. An empty tensor moves nothing: both
// ends must agree on the sizes. Tensors off the host (CUDA) move through
// host copies. Every rank calls it in the same order. Not for NCCL, whose
// receive and send of one pair would wait on each other.
void exchange(c10d::ProcessGroup& pg, const std::vector<at::Tensor>& to,
              const std::vector<at::Tensor>& from, int tag);

}  // namespace distalgo::hooks::internal
