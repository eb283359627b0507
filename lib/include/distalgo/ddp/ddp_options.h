#pragma once

// Options of distalgo::DistributedDataParallel, named after PyTorch's.

#include <cstddef>
#include <optional>

#include "torch_compat/version.h"

namespace distalgo::ddp {

// c10d's bucket cap, where DdpOptions leave bucket_cap_mb unset.
inline constexpr double kDefaultBucketCapMb = 25.0;
// PyTorch's dist._DEFAULT_FIRST_BUCKET_BYTES: the first bucket's cap unless
// DdpOptions say otherwise.
inline constexpr std::size_t kDefaultFirstBucketCapBytes =
    std::size_t{1024} * 1024;

struct DdpOptions {
  // Gradient bucket size; unset, c10d's default of 25 MiB. As in PyTorch, the
  // first iteration puts every gradient in one bucket unless
  // find_unused_parameters is set without static_graph; the limits apply
  // from the rebuild after it.
  std::optional<double> bucket_cap_mb;
  // The first bucket is kept small so that its allreduce starts early.
  // Unset, PyTorch's rule for the libtorch built against: 1 MiB
  // (dist._DEFAULT_FIRST_BUCKET_BYTES) on 1.13; on 2.x 1 MiB while
  // bucket_cap_mb is unset, else the bucket cap, as PyTorch 2.x does when
  // bucket_cap_mb is passed. Set, exactly this, on every libtorch.
  std::optional<std::size_t> first_bucket_cap_bytes;
  // Traverse the autograd graph after forward to mark parameters that will
  // get no gradient this iteration.
  bool find_unused_parameters = false;
  // Gradients become views into the communication buckets (saves a copy).
  bool gradient_as_bucket_view = false;
  // Broadcast buffers (e.g. batch-norm statistics) before a forward that
  // follows one that reduced: from rank 0, or under a Join from the highest
  // rank still training. Whether construction and the end of a Join
  // broadcast them too: syncsBuffersWithParameters().
  bool broadcast_buffers = true;
  // The set of used parameters and the graph do not change across iterations.
  // The reducer records them in the first iteration, whose gradients it
  // reduces all at once when backward ends; parameters that forward never
  // uses then need no find_unused_parameters.
  bool static_graph = false;
};

// Whether construction and the end of a Join broadcast the buffers along with
// the parameters. As the PyTorch of the libtorch built against: 1.13 always
// does; 2.x (from 2.1) only with broadcast_buffers.
constexpr bool syncsBuffersWithParameters(const DdpOptions& options) {
  return options.broadcast_buffers || torch_compat::kTorchMajor < 2;
}

}  // namespace distalgo::ddp
