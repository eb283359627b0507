#pragma once

// The wire formats of collective quantization (PyTorch's DQuantType).

#include <string_view>

namespace distalgo::quantization {

// FP16: IEEE float16. BFP16: bfloat16, the upper half of a float32's bits,
// carried in a float16-typed tensor as PyTorch does (so that backends that
// move float16 but not bfloat16, such as Gloo, can move it).
enum class DQuantType { FP16, BFP16 };

// "fp16" or "bfp16", PyTorch's values.
constexpr std::string_view toString(DQuantType type) {
  return type == DQuantType::FP16 ? "fp16" : "bfp16";
}

}  // namespace distalgo::quantization
