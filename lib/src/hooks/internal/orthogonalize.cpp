#include "distalgo/hooks/internal/orthogonalize.h"

#include <ATen/ATen.h>
#include <c10/util/Exception.h>

namespace distalgo::hooks::internal {

void orthogonalize(const at::Tensor& matrices, double epsilon) {
  TORCH_CHECK(matrices.dim() == 3 && matrices.size(2) <= matrices.size(1),
              "orthogonalize expects a batch [batch, n, r] with r <= n, got ",
              matrices.sizes());
  const auto dtype = matrices.scalar_type();
  if (matrices.size(2) <= 2 || dtype == at::kHalf || dtype == at::kBFloat16) {
    orthogonalizeGramSchmidt(matrices, epsilon);
    return;
  }
  // PyTorch writes Q into the matrices through out=; copying is the same.
  const auto [q, r] = at::linalg_qr(matrices, "reduced");
  matrices.copy_(q);
}

void orthogonalizeGramSchmidt(const at::Tensor& matrices, double epsilon) {
  const std::int64_t columns = matrices.size(2);
  for (std::int64_t i = 0; i < columns; ++i) {
    at::Tensor column = matrices.narrow(2, i, 1);
    // torch.norm(dim=1) is linalg.vector_norm: the same kernel keeps the
    // result bit for bit PyTorch's.
    at::Tensor norm = at::linalg_vector_norm(column, 2, {1}, /*keepdim=*/true);
    if (epsilon == 0) {
      column.div_(norm);
    } else {
      column.div_(norm + epsilon);
    }
    if (i + 1 < columns) {
      at::Tensor rest = matrices.narrow(2, i + 1, columns - i - 1);
      rest.sub_(at::sum(column * rest, {1}, /*keepdim=*/true) * column);
    }
  }
}

}  // namespace distalgo::hooks::internal
