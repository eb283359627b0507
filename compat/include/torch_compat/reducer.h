#pragma once

// c10d::Reducer's constructor, whose arguments changed three times after
// 1.13. The shape is picked by which call compiles.

#include <cstdint>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/reducer.hpp>
#include <unordered_map>
#include <utility>
#include <vector>

namespace torch_compat {

// The arguments DDP passes, as 1.13 names them.
struct ReducerArgs {
  std::vector<at::Tensor> params;
  std::vector<std::vector<std::size_t>> bucket_indices;
  // Each first-iteration bucket's byte cap; libtorch 2.x works them out
  // itself and takes no such argument.
  std::vector<std::size_t> per_bucket_size_limits;
  c10::intrusive_ptr<c10d::ProcessGroup> process_group;
  std::vector<bool> expect_sparse_gradients;
  std::int64_t bucket_bytes_cap = 0;
  bool find_unused_parameters = false;
  bool gradient_as_bucket_view = false;
  std::unordered_map<std::size_t, std::string> param_names;
  std::int64_t first_bucket_bytes_cap = 0;
};

template <class Reducer = c10d::Reducer>
std::unique_ptr<Reducer> makeReducer(ReducerArgs a) {
  using Limits = std::vector<std::size_t>;
  using Caps = std::vector<std::int64_t>;
  using Group = c10::intrusive_ptr<c10d::ProcessGroup>;
  using Names = std::unordered_map<std::size_t, std::string>;
  using Indices = std::vector<std::vector<std::size_t>>;
  using Params = std::vector<at::Tensor>;
  using Sparse = std::vector<bool>;
  if constexpr (std::is_constructible_v<Reducer, Params, Indices, Limits, Group,
                                        Sparse, std::int64_t, bool, bool, Names,
                                        std::int64_t>) {
    // 1.13 to 2.7
    return std::make_unique<Reducer>(
        std::move(a.params), std::move(a.bucket_indices),
        std::move(a.per_bucket_size_limits), std::move(a.process_group),
        std::move(a.expect_sparse_gradients), a.bucket_bytes_cap,
        a.find_unused_parameters, a.gradient_as_bucket_view,
        std::move(a.param_names), a.first_bucket_bytes_cap);
  } else if constexpr (std::is_constructible_v<Reducer, Params, Indices, Group,
                                               Sparse, std::int64_t, bool, bool,
                                               Names, std::int64_t, bool, bool,
                                               Caps>) {
    // 2.8 on: no per-bucket limits; unused parameters' gradients reduced
    // (skip_all_reduce_unused_params=false), the C++ reducer, and an empty
    // bucket_bytes_cap_list (one cap for every bucket, as before).
    return std::make_unique<Reducer>(
        std::move(a.params), std::move(a.bucket_indices),
        std::move(a.process_group), std::move(a.expect_sparse_gradients),
        a.bucket_bytes_cap, a.find_unused_parameters, a.gradient_as_bucket_view,
        std::move(a.param_names), a.first_bucket_bytes_cap,
        /*skip_all_reduce_unused_params=*/false,
        /*use_python_reducer=*/false, Caps{});
  } else {
    // 2.14 on: batched_grad_copy appended (off, as PyTorch's default).
    return std::make_unique<Reducer>(
        std::move(a.params), std::move(a.bucket_indices),
        std::move(a.process_group), std::move(a.expect_sparse_gradients),
        a.bucket_bytes_cap, a.find_unused_parameters, a.gradient_as_bucket_view,
        std::move(a.param_names), a.first_bucket_bytes_cap,
        /*skip_all_reduce_unused_params=*/false,
        /*use_python_reducer=*/false, Caps{}, /*batched_grad_copy=*/false);
  }
}

}  // namespace torch_compat
