#pragma once

// Options of distalgo::DistributedDataParallel, named after PyTorch's.

#include <cstddef>

namespace distalgo::ddp {

struct DdpOptions {
  // Gradient bucket size; c10d's default is 25 MiB. As in PyTorch, the first
  // iteration puts every gradient in one bucket unless find_unused_parameters
  // is set without static_graph; the limits apply from the rebuild after it.
  double bucket_cap_mb = 25.0;
  // The first bucket is kept small so that its allreduce starts early.
  std::size_t first_bucket_cap_bytes = std::size_t{1024} * 1024;
  // Traverse the autograd graph after forward to mark parameters that will
  // get no gradient this iteration.
  bool find_unused_parameters = false;
  // Gradients become views into the communication buckets (saves a copy).
  bool gradient_as_bucket_view = false;
  // Broadcast buffers (e.g. batch-norm statistics) from rank 0 every forward.
  bool broadcast_buffers = true;
  // The set of used parameters and the graph do not change across iterations.
  // The reducer records them in the first iteration, whose gradients it
  // reduces all at once when backward ends; parameters that forward never
  // uses then need no find_unused_parameters.
  bool static_graph = false;
};

}  // namespace distalgo::ddp
