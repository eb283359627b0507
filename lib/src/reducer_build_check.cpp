// Compile check: c10d's reducer header builds, on Debian's 1.13 with the
// distributed-autograd header it lacks from compat/missing-headers. The
// DDP feature links the reducer itself.

#include <torch/csrc/distributed/c10d/reducer.hpp>
