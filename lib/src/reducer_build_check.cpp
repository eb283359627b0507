// Compile check: c10d's reducer header builds against the compat header in
// lib/compat (Debian lacks the distributed-autograd header it includes). The
// DDP feature links the reducer itself.

#include <torch/csrc/distributed/c10d/reducer.hpp>
