#pragma once

// Buffers that a call stages its data in and that outlive the call, one per
// slot and thread: repeated calls of a size reuse memory that is already
// mapped, where a fresh tensor of 32 MiB costs thousands of page faults on
// every call. A slot keeps the largest size asked of it on its thread until
// the thread ends.

#include <ATen/core/Tensor.h>

#include <cstdint>

namespace distalgo::quantization::internal {

// What a slot holds. A call uses each slot for one thing at a time; a call
// nested in it (the collective inside autoQuantize) uses other slots.
enum class StagingSlot {
  kQuantizedInputs,
  kQuantizedOutputs,
  kSent,
  kReceived,
  kSum,
  kCount
};

// A contiguous CPU tensor of `numel` elements of `dtype` in this thread's
// buffer for `slot`, uninitialised. Valid until the next staging() of the
// same slot on this thread: nothing may keep it past the call.
at::Tensor staging(StagingSlot slot, std::int64_t numel, at::ScalarType dtype);

}  // namespace distalgo::quantization::internal
