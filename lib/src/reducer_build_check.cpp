// Compile check: c10d's reducer header builds against the compat header, and
// the reducer's entry point links from Debian's libtorch.

#include <torch/csrc/distributed/c10d/reducer.hpp>

namespace distalgo::internal {

// Referenced so that the link proves compute_bucket_assignment_by_size exists.
auto* const kBucketAssignment = &c10d::compute_bucket_assignment_by_size;

}  // namespace distalgo::internal
