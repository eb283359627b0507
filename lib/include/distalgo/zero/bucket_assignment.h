#pragma once

// Which rank steps and broadcasts each DDP gradient bucket when ZeRO runs
// inside DDP's communication hook (overlap.h). Pure computation, identical
// on every rank.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace distalgo::zero {

// Consecutive parameters of one DDP bucket that one rank owns.
struct BucketAssignment {
  std::size_t bucket;  // DDP bucket index
  std::size_t offset;  // first parameter of the piece within the bucket
  std::size_t count;   // number of parameters in the piece
  int rank;            // the owner: steps the piece and broadcasts it

  bool operator==(const BucketAssignment&) const = default;
};

// `bucket_numels[b][i]`: the element count of parameter i of bucket b.
// Returns the pieces sorted by (bucket, offset), the order in which every
// rank steps and broadcasts them. As PyTorch's ZeroRedundancyOptimizer:
// - without `shard_buckets`, bucket b goes whole to rank b % world_size;
// - with it, buckets are visited by ascending size (stable) and cut into
//   consecutive pieces of about total / world_size elements (a piece closes
//   before the parameter that would reach that threshold); each piece goes
//   to the least-loaded rank (lowest on ties) that holds no other piece of
//   the bucket. Unlike PyTorch, which fails when a bucket yields more pieces
//   than ranks, the last rank left takes the rest of the bucket.
// Throws std::invalid_argument on world_size < 1 or an empty bucket.
std::vector<BucketAssignment> assignBucketsToRanks(
    const std::vector<std::vector<std::int64_t>>& bucket_numels, int world_size,
    bool shard_buckets);

}  // namespace distalgo::zero
