// Reference DDP (the real c10d::Reducer, default allreduce) trains exactly
// like one process: on the concatenated global batch, or for a model with
// batch norm as the replay of fixtures/replay.h. One row per (model, options)
// combination; every row runs at world sizes 2, 3 and 4.

#include <string>
#include <vector>

#include "ddp_parity.h"

namespace ddpparity {
namespace {

using distalgo::ddp::DdpOptions;

struct ParityCase {
  std::string name;
  Model model;
  DdpOptions options;
};

class DdpParityGroundTruth
    : public ranktest::DistributedTestWithParam<ParityCase> {
 public:
  static ranktest::TestOptions testOptions() {
    return {.world_sizes = {2, 3, 4}};
  }
  static std::string paramName(const ParityCase& row, std::size_t) {
    return row.name;
  }
};

RANKTEST_P(DdpParityGroundTruth, TrainsLikeOneProcess) {
  const ParityCase& row = param();
  const auto model =
      fixtures::trainUnderDdp(pg(), ddpTraining(row.model, rank(), row.options))
          .model;
  const auto reference =
      groundTruth(row.model, worldSize(), row.options.broadcast_buffers);
  fixtures::expectSameParameters(*model, *reference.model, kTolerance);
  if (!reference.buffers.empty()) {
    fixtures::expectSameBuffers(*model, reference.buffers[rank()], kTolerance);
  }
}

// Options, one change from the defaults each. The defaults put all of these
// small models in one bucket.
const DdpOptions kDefaults{};
const DdpOptions kBucketView{.gradient_as_bucket_view = true};
// Caps below every parameter's size give each parameter its own bucket.
const DdpOptions kBucketPerParameter{.bucket_cap_mb = 1e-6,
                                     .first_bucket_cap_bytes = 1};
// About 600 bytes a bucket: a few parameters share one.
const DdpOptions kSmallBuckets{.bucket_cap_mb = 600.0 / (1024 * 1024),
                               .first_bucket_cap_bytes = 600};
const DdpOptions kFindUnused{.find_unused_parameters = true};
const DdpOptions kStaticGraph{.static_graph = true};

// Every model with each option it can take, plus a few combinations. The
// unused-parameter net needs find_unused_parameters or static_graph.
const std::vector<ParityCase> kMatrix = {
    {"Mlp", Model::kMlp, kDefaults},
    {"MlpBucketView", Model::kMlp, kBucketView},
    {"MlpBucketPerParameter", Model::kMlp, kBucketPerParameter},
    {"MlpSmallBuckets", Model::kMlp, kSmallBuckets},
    {"MlpFindUnused", Model::kMlp, kFindUnused},
    {"MlpStaticGraph", Model::kMlp, kStaticGraph},
    {"ConvNet", Model::kConvNet, kDefaults},
    {"ConvNetBucketView", Model::kConvNet, kBucketView},
    {"ConvNetBucketPerParameter", Model::kConvNet, kBucketPerParameter},
    {"ConvNetFindUnused", Model::kConvNet, kFindUnused},
    {"ConvNetStaticGraph", Model::kConvNet, kStaticGraph},
    {"UnusedFindUnused", Model::kUnusedParameterNet, kFindUnused},
    {"UnusedStaticGraph", Model::kUnusedParameterNet, kStaticGraph},
    {"UnusedFindUnusedBucketView",
     Model::kUnusedParameterNet,
     {.find_unused_parameters = true, .gradient_as_bucket_view = true}},
    {"UnusedFindUnusedBucketPerParameter",
     Model::kUnusedParameterNet,
     {.bucket_cap_mb = 1e-6,
      .first_bucket_cap_bytes = 1,
      .find_unused_parameters = true}},
    {"UnusedStaticGraphBucketView",
     Model::kUnusedParameterNet,
     {.gradient_as_bucket_view = true, .static_graph = true}},
    {"UnusedStaticGraphBucketPerParameter",
     Model::kUnusedParameterNet,
     {.bucket_cap_mb = 1e-6,
      .first_bucket_cap_bytes = 1,
      .static_graph = true}},
    {"UnusedStaticGraphAndFindUnused",
     Model::kUnusedParameterNet,
     {.find_unused_parameters = true, .static_graph = true}},
    {"BatchNorm", Model::kBatchNormNet, kDefaults},
    {"BatchNormBucketView", Model::kBatchNormNet, kBucketView},
    {"BatchNormBucketPerParameter", Model::kBatchNormNet, kBucketPerParameter},
    {"BatchNormFindUnused", Model::kBatchNormNet, kFindUnused},
    {"BatchNormStaticGraph", Model::kBatchNormNet, kStaticGraph},
    {"BatchNormNoBroadcastBuffers",
     Model::kBatchNormNet,
     {.broadcast_buffers = false}},
    // Ranks other than 0 start from other values of the frozen layer too:
    // only the construction's broadcast makes them rank 0's.
    {"FrozenLayer", Model::kFrozenLayerNet, kDefaults},
    // One weight under two names (tied), in one bucket entry.
    {"Tied", Model::kTiedNet, kDefaults},
    {"TiedBucketView", Model::kTiedNet, kBucketView},
    {"TiedFindUnused", Model::kTiedNet, kFindUnused},
};
RANKTEST_INSTANTIATE_P(DdpParityGroundTruth, kMatrix);

}  // namespace
}  // namespace ddpparity
