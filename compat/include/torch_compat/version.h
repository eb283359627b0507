#pragma once

// The major version of the libtorch built against, for the behaviours of
// PyTorch's Python that distalgo mirrors and no header reveals (DDP's first
// bucket rule, say). Prefer a trait wherever the headers differ.

#include <torch/version.h>

namespace torch_compat {

inline constexpr int kTorchMajor = TORCH_VERSION_MAJOR;

}  // namespace torch_compat
