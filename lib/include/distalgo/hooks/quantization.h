#pragma once

// Gradient quantization to uint8 for the wire (PyTorch's
// quantization_hooks.py, which is CUDA-only in 1.13; these run on CPU with
// Gloo and on CUDA). Each rank quantizes its bucket with its own scale and
// zero point; every rank dequantizes every rank's uint8 data with that
// rank's parameters, sums, and divides by the world size. The result is the
// mean over ranks of each rank's own quantize-dequantize round trip.
//
// Traffic per bucket of n float32 elements (bytes this rank puts in): an
// allgather of the scales and zero points, 8 per row, then the uint8 rows:
// on NCCL an allgather, elsewhere (Gloo) point-to-point sends of them to
// each other rank, all receives posted first (bf16_allreduce.h says why).
// Per tensor, one row of n; per channel, rows = n / bucket_size + 1 of
// bucket_size.

#include <cstdint>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>

#include "distalgo/ddp/comm_hook.h"

namespace distalgo::hooks {

// One scale and zero point for the whole bucket, from its minimum and
// maximum (PyTorch's quantization_pertensor_hook). The error per element is
// up to half a step, (max(x, 0) - min(x, 0)) / 510, before averaging.
ddp::CommHook quantizationPerTensorHook(
    c10::intrusive_ptr<c10d::ProcessGroup> pg);

// The bucket padded with zeros and cut into rows of `bucket_size`, with a
// scale and zero point per row (PyTorch's quantization_perchannel_hook). As
// in PyTorch the padding is bucket_size - n % bucket_size, so a bucket whose
// length is a multiple of bucket_size sends one extra row of zeros. Throws
// std::invalid_argument if bucket_size < 1.
ddp::CommHook quantizationPerChannelHook(
    c10::intrusive_ptr<c10d::ProcessGroup> pg, std::int64_t bucket_size = 512);

}  // namespace distalgo::hooks
