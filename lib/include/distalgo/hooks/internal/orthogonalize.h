#pragma once

// Orthogonalization of PowerSGD's low-rank factors (PyTorch's
// _orthogonalize).

#include <ATen/core/Tensor.h>

namespace distalgo::hooks::internal {

// Orthonormalizes, in place, the columns of each matrix of a batch shaped
// [batch, n, r] with r <= n. Gram-Schmidt for r <= 2 or half precision
// (cheaper, and QR lacks half kernels), reduced QR otherwise. `epsilon` is
// added to each column norm; with 0 a zero column becomes NaN, as in PyTorch.
void orthogonalize(const at::Tensor& matrices, double epsilon);

// Gram-Schmidt alone, whatever the rank.
void orthogonalizeGramSchmidt(const at::Tensor& matrices, double epsilon);

}  // namespace distalgo::hooks::internal
