#pragma once

// A gradient bucket built by hand, laid out as the reducer lays one out, so
// a test can call a hook directly on chosen gradients.

#include <ATen/ATen.h>

#include <cstdint>
#include <torch/csrc/distributed/c10d/comm.hpp>
#include <vector>

#include "distalgo/ddp/grad_bucket.h"
#include "torch_compat/grad_bucket.h"

namespace hooktest {

class SyntheticBucket {
 public:
  // `buffer` holds the gradients of `shapes` back to back; the bucket is
  // the only one, hence the last, of its iteration.
  SyntheticBucket(const at::Tensor& buffer,
                  std::vector<std::vector<std::int64_t>> shapes)
      : shapes_(std::move(shapes)),
        c10d_(torch_compat::makeGradBucket(0, 1, buffer, offsets(), lengths(),
                                           sizes(), {})),
        bucket_(c10d_) {}

  distalgo::ddp::GradBucket& bucket() { return bucket_; }

 private:
  std::vector<std::size_t> lengths() const {
    std::vector<std::size_t> out;
    for (const auto& shape : shapes_) {
      std::int64_t numel = 1;
      for (std::int64_t size : shape) numel *= size;
      out.push_back(static_cast<std::size_t>(numel));
    }
    return out;
  }
  std::vector<std::size_t> offsets() const {
    std::vector<std::size_t> out;
    std::size_t offset = 0;
    for (std::size_t length : lengths()) {
      out.push_back(offset);
      offset += length;
    }
    return out;
  }
  // Views of shapes_, which outlives the c10d bucket that keeps them.
  std::vector<c10::IntArrayRef> sizes() const {
    return {shapes_.begin(), shapes_.end()};
  }

  std::vector<std::vector<std::int64_t>> shapes_;
  c10d::GradBucket c10d_;
  distalgo::ddp::GradBucket bucket_;
};

}  // namespace hooktest
