#pragma once

// c10::Allocator's virtuals changed in 2.x: allocate() lost its const, and
// copy_data() became pure. An override's signature cannot be picked by a
// trait, so the allocator fixtures declare theirs with these macros.

#include <c10/core/Allocator.h>
#include <torch/version.h>

#if TORCH_VERSION_MAJOR >= 2
// The qualifier of c10::Allocator::allocate.
#define TORCH_COMPAT_ALLOCATE_CONST
// An allocator whose memory is plain host memory copies it as the default.
#define TORCH_COMPAT_DEFAULT_COPY_DATA                           \
  void copy_data(void* dest, const void* src, std::size_t count) \
      const override {                                           \
    default_copy_data(dest, src, count);                         \
  }
#else
#define TORCH_COMPAT_ALLOCATE_CONST const
#define TORCH_COMPAT_DEFAULT_COPY_DATA
#endif
