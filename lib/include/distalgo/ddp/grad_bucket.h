#pragma once

// The bucket of gradients a communication hook receives: c10d::GradBucket
// with the accessor names PyTorch's Python API settled on (index, buffer,
// set_buffer, gradients, parameters, is_last), spelled in C++ style.

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <torch/csrc/distributed/c10d/comm.hpp>
#include <vector>

namespace distalgo::ddp {

class GradBucket {
 public:
  explicit GradBucket(c10d::GradBucket& bucket) : bucket_(bucket) {}

  // Position of the bucket in reduction order (0 is reduced first).
  std::size_t index() const { return bucket_.getIndex(); }
  // The flattened gradients of every parameter of the bucket.
  const at::Tensor& buffer() const { return bucket_.getBuffer(); }
  // Replaces the buffer that hooks down the chain see (e.g. a compressed
  // copy); the reducer still takes the reduced result from the future.
  void setBuffer(at::Tensor buffer) { bucket_.setBuffer(buffer); }
  // One view per parameter into buffer(), shaped like the parameter.
  std::vector<at::Tensor> gradients() const { return bucket_.getGradients(); }
  // The bucket's parameters, in the order of gradients().
  std::vector<at::Tensor> parameters() const { return bucket_.getParameters(); }
  // Whether this is the last bucket of the iteration.
  bool isLast() const { return bucket_.isLast(); }

  // The c10d bucket, for c10d's own hooks.
  c10d::GradBucket& c10dBucket() { return bucket_; }

 private:
  c10d::GradBucket& bucket_;
};

}  // namespace distalgo::ddp
