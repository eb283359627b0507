#pragma once

// A bucket's reduced result read as each parameter's gradient.

#include <ATen/core/Tensor.h>

#include <vector>

namespace distalgo::ddp::internal {

// `reduced` (a hook's result for the bucket whose buffer is `buffer`) as the
// reducer lays the bucket out: each parameter's gradient in the parameter's
// memory layout where it is dense (e.g. channels_last), else row-major.
// `row_major` are the bucket's views of `buffer` (GradBucket's gradients),
// which give the offsets.
std::vector<at::Tensor> gradientViews(
    const at::Tensor& reduced, const at::Tensor& buffer,
    const std::vector<at::Tensor>& row_major,
    const std::vector<at::Tensor>& parameters);

}  // namespace distalgo::ddp::internal
