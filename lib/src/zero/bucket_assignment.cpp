#include "distalgo/zero/bucket_assignment.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "internal/check.h"

namespace distalgo::zero {
namespace {

constexpr const char* kAssignBuckets = "distalgo::zero::assignBucketsToRanks: ";

// The least-loaded rank not in `taken` (lowest on ties).
int leastLoaded(const std::vector<std::int64_t>& load,
                const std::vector<bool>& taken) {
  int best = -1;
  for (int r = 0; r < static_cast<int>(load.size()); ++r) {
    if (!taken[r] && (best < 0 || load[r] < load[best])) best = r;
  }
  return best;
}

std::int64_t sum(const std::vector<std::int64_t>& sizes) {
  return std::accumulate(sizes.begin(), sizes.end(), std::int64_t{0});
}

void shardBucket(std::size_t b, const std::vector<std::int64_t>& sizes,
                 double threshold, std::vector<std::int64_t>& load,
                 std::vector<BucketAssignment>& out) {
  const int world_size = static_cast<int>(load.size());
  std::vector<bool> taken(world_size, false);
  int pieces = 0;
  const auto assign = [&](std::size_t offset, std::size_t end,
                          std::int64_t size) {
    const int rank = leastLoaded(load, taken);
    taken[rank] = true;
    load[rank] += size;
    ++pieces;
    out.push_back({b, offset, end - offset, rank});
  };
  std::size_t offset = 0;
  std::int64_t size = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    // The last free rank takes the rest, so no rank holds two pieces.
    if (pieces < world_size - 1 && i > offset &&
        static_cast<double>(size + sizes[i]) >= threshold) {
      assign(offset, i, size);
      offset = i;
      size = 0;
    }
    size += sizes[i];
  }
  assign(offset, sizes.size(), size);
}

}  // namespace

std::vector<BucketAssignment> assignBucketsToRanks(
    const std::vector<std::vector<std::int64_t>>& bucket_numels, int world_size,
    bool shard_buckets) {
  DISTALGO_CHECK_ARG(world_size >= 1, kAssignBuckets,
                     "world_size must be at least 1, got ", world_size);
  for (std::size_t b = 0; b < bucket_numels.size(); ++b) {
    DISTALGO_CHECK_ARG(!bucket_numels[b].empty(), kAssignBuckets, "bucket ", b,
                       " is empty");
  }
  std::vector<BucketAssignment> out;
  if (!shard_buckets) {
    for (std::size_t b = 0; b < bucket_numels.size(); ++b) {
      out.push_back(
          {b, 0, bucket_numels[b].size(),
           static_cast<int>(b % static_cast<std::size_t>(world_size))});
    }
    return out;
  }
  std::vector<std::size_t> order(bucket_numels.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
    return sum(bucket_numels[a]) < sum(bucket_numels[b]);
  });
  std::int64_t total = 0;
  for (const auto& sizes : bucket_numels) total += sum(sizes);
  const double threshold = static_cast<double>(total) / world_size;
  std::vector<std::int64_t> load(world_size, 0);
  for (const auto b : order) {
    shardBucket(b, bucket_numels[b], threshold, load, out);
  }
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    return x.bucket != y.bucket ? x.bucket < y.bucket : x.offset < y.offset;
  });
  return out;
}

}  // namespace distalgo::zero
