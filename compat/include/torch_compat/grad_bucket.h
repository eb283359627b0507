#pragma once

// c10d::GradBucket built by hand (tests and hooks run outside a reducer):
// libtorch 2.x added the bucket's sparse gradient indices, without a default.

#include <cstddef>
#include <optional>
#include <torch/csrc/distributed/c10d/comm.hpp>
#include <type_traits>
#include <vector>

namespace torch_compat {

// A dense bucket: `buffer` holds `parameters`' gradients at `offsets`.
template <class Bucket = c10d::GradBucket>
Bucket makeGradBucket(std::size_t index, std::size_t bucket_count,
                      at::Tensor buffer, std::vector<std::size_t> offsets,
                      std::vector<std::size_t> lengths,
                      std::vector<c10::IntArrayRef> sizes,
                      std::vector<at::Tensor> parameters) {
  if constexpr (std::is_constructible_v<
                    Bucket, std::size_t, std::size_t, at::Tensor,
                    std::vector<std::size_t>, std::vector<std::size_t>,
                    std::vector<c10::IntArrayRef>, std::vector<at::Tensor>>) {
    return Bucket(index, bucket_count, std::move(buffer), std::move(offsets),
                  std::move(lengths), std::move(sizes), std::move(parameters));
  } else {
    return Bucket(index, bucket_count, std::move(buffer), std::move(offsets),
                  std::move(lengths), std::move(sizes), std::move(parameters),
                  /*sparse_grad_indices=*/std::nullopt);
  }
}

}  // namespace torch_compat
