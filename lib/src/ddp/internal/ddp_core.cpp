#include "distalgo/ddp/internal/ddp_core.h"

#include <ATen/core/grad_mode.h>
#include <ATen/ops/full.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <torch/csrc/distributed/c10d/comm.hpp>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "ddp/internal/comm_hook_adapter.h"
#include "ddp/internal/delay_all_reduce_sink.h"
#include "distalgo/join/join.h"
#include "internal/check.h"
#include "internal/same_parameters.h"
#include "torch_compat/reducer.h"
#include "torch_compat/version.h"

namespace distalgo::ddp::internal {
namespace {

constexpr const char* kDdp = "distalgo::DistributedDataParallel: ";

// 2^43 MiB is 2^63 bytes.
constexpr double kLargestBucketCapMb = 8796093022208.0;

// PyTorch's _sync_module_states bucket.
constexpr std::size_t kBroadcastBucketBytes = std::size_t{250} * 1024 * 1024;

std::unordered_map<std::size_t, std::string> indexed(
    const std::vector<std::string>& names) {
  std::unordered_map<std::size_t, std::string> out;
  for (std::size_t i = 0; i < names.size(); ++i) out[i] = names[i];
  return out;
}

// libtorch lists a tensor registered under several names (a tied weight)
// once per name; PyTorch's named_parameters() and named_buffers() list it
// once, under its first name. The reducer must hold a parameter once (else
// it reduces it in two bucket entries), and a bucket's optimizer must step
// it once.
template <typename NamedTensors>
std::vector<std::pair<std::string, at::Tensor>> eachTensorOnce(
    const NamedTensors& named) {
  std::unordered_set<const c10::TensorImpl*> seen;
  std::vector<std::pair<std::string, at::Tensor>> once;
  for (const auto& item : named) {
    if (seen.insert(item.value().unsafeGetTensorImpl()).second) {
      once.emplace_back(item.key(), item.value());
    }
  }
  return once;
}

void checkOptions(const DdpOptions& options) {
  // PyTorch fails on these too: c10d takes the cap as an unsigned size.
  const double cap_mb = options.bucket_cap_mb.value_or(0);
  DISTALGO_CHECK_ARG(cap_mb >= 0, kDdp, "bucket_cap_mb must be >= 0, got ",
                     cap_mb);
  // c10d takes the cap in bytes as a 64-bit integer (PyTorch's int() of an
  // infinite cap fails too); a larger one would convert to anything.
  DISTALGO_CHECK_ARG(cap_mb < kLargestBucketCapMb, kDdp,
                     "bucket_cap_mb must be below 2^43 (its bytes are a "
                     "64-bit integer), got ",
                     cap_mb);
}

// The bucket size limits of the first iteration, as PyTorch chooses them:
// registration order need not be the order gradients arrive in, so when the
// reducer rebuilds its buckets after the first iteration (in arrival order,
// with the real limits) the first has one bucket of unlimited size. Only a
// dynamic graph with unused parameters never rebuilds and starts with the
// real limits.
// The first bucket's cap: the options', else PyTorch's rule (2.x keeps its
// small first bucket only where the bucket cap is its default, 1.13 always).
std::size_t firstBucketCapBytes(const DdpOptions& options,
                                std::size_t bucket_cap_bytes) {
  if (options.first_bucket_cap_bytes) return *options.first_bucket_cap_bytes;
  const bool cap_given = options.bucket_cap_mb.has_value();
  return cap_given && torch_compat::kTorchMajor >= 2
             ? bucket_cap_bytes
             : kDefaultFirstBucketCapBytes;
}

std::vector<std::size_t> firstIterationLimits(const DdpOptions& options,
                                              std::size_t bucket_cap_bytes) {
  const bool rebuilds = options.static_graph || !options.find_unused_parameters;
  if (rebuilds) {
    // PyTorch's sys.maxsize.
    return {static_cast<std::size_t>(std::numeric_limits<std::int64_t>::max())};
  }
  return {firstBucketCapBytes(options, bucket_cap_bytes), bucket_cap_bytes};
}

}  // namespace

DdpCore::DdpCore(std::shared_ptr<torch::nn::Module> module,
                 c10::intrusive_ptr<c10d::ProcessGroup> pg, DdpOptions options)
    : module_(std::move(module)), pg_(std::move(pg)), options_(options) {
  checkOptions(options_);
  // Those that require a gradient are checked, as PyTorch's
  // _verify_param_shape_across_processes does, and reduced. Every parameter,
  // frozen ones too, is broadcast (PyTorch's _sync_module_states), so all
  // are checked as well: a broadcast over other shapes fails unnamed.
  std::vector<std::string> all_names;
  std::vector<at::Tensor> all_parameters;
  std::vector<std::string> names;
  for (auto& [name, parameter] : eachTensorOnce(module_->named_parameters())) {
    all_names.push_back(name);
    all_parameters.push_back(parameter);
    if (!parameter.requires_grad()) continue;
    names.push_back(std::move(name));
    parameters_.push_back(std::move(parameter));
  }
  DISTALGO_CHECK_ARG(!parameters_.empty(), kDdp,
                     "the module has no parameter that requires a gradient");

  distalgo::internal::checkSameParametersOnEveryRank(
      pg_, parameters_, names, "distalgo::DistributedDataParallel");
  distalgo::internal::checkSameParametersOnEveryRank(
      pg_, all_parameters, all_names, "distalgo::DistributedDataParallel");
  {
    at::NoGradGuard no_grad;
    broadcastFrom(0, moduleStates());
  }

  const auto bucket_cap_bytes = static_cast<std::size_t>(
      options_.bucket_cap_mb.value_or(kDefaultBucketCapMb) * 1024 * 1024);
  const std::vector<bool> expect_sparse(parameters_.size(), false);
  auto [bucket_indices, size_limits] = c10d::compute_bucket_assignment_by_size(
      parameters_, firstIterationLimits(options_, bucket_cap_bytes),
      expect_sparse);
  // Buckets are reduced in reverse order of the parameters, as gradients
  // become ready in backward (PyTorch reverses them alike).
  std::reverse(bucket_indices.begin(), bucket_indices.end());
  std::reverse(size_limits.begin(), size_limits.end());
  reducer_ = torch_compat::makeReducer(
      {.params = parameters_,
       .bucket_indices = std::move(bucket_indices),
       .per_bucket_size_limits = std::move(size_limits),
       .process_group = pg_,
       .expect_sparse_gradients = expect_sparse,
       .bucket_bytes_cap = static_cast<int64_t>(bucket_cap_bytes),
       .find_unused_parameters = options_.find_unused_parameters,
       .gradient_as_bucket_view = options_.gradient_as_bucket_view,
       .param_names = indexed(names),
       .first_bucket_bytes_cap = static_cast<int64_t>(
           firstBucketCapBytes(options_, bucket_cap_bytes))});
  // Before any forward: the reducer refuses it later. find_unused_parameters
  // may be set as well; the static graph then finds the unused parameters
  // once, in the first iteration, instead of searching every iteration.
  if (options_.static_graph) reducer_->set_static_graph();
}

DdpCore::~DdpCore() {
  if (!heartbeat_) return;
  try {
    heartbeat_->wait();
  } catch (const std::exception&) {
    // The group failed; nothing is in flight any more.
  }
}

void DdpCore::broadcastFrom(int source,
                            const std::vector<at::Tensor>& tensors) {
  if (tensors.empty()) return;
  c10d::broadcast_coalesced(pg_, tensors, kBroadcastBucketBytes, source);
}

void DdpCore::claimHookSlot(const std::string& name) {
  // The reducer would refuse too, but without naming either hook.
  DISTALGO_CHECK_STATE(hook_name_.empty(), kDdp, "cannot register hook '", name,
                       "': hook '", hook_name_,
                       "' is registered already (one per model)");
  hook_name_ = name;
}

void DdpCore::registerCommHook(CommHook hook, std::string name) {
  claimHookSlot(name);
  reducer_->register_comm_hook(
      adaptCommHook(std::move(hook), std::move(name), pg_->getRank()));
}

void DdpCore::registerBuiltinCommHook(c10d::BuiltinCommHookType type) {
  claimHookSlot("builtin " + std::to_string(static_cast<int>(type)));
  reducer_->register_builtin_comm_hook(type);
}

void DdpCore::checkPreviousBackwardRan() const {
  // Otherwise this rank's next backward would be reduced together with the
  // other ranks' previous one: wrong numbers, or a hang at the end.
  DISTALGO_CHECK_STATE(
      !reduction_pending_ || *backward_reached_,
      "distalgo::DistributedDataParallel on rank ", pg_->getRank(),
      ": forward ran again, but backward never ran on the previous forward's "
      "outputs. Every rank must run backward after each forward that has "
      "gradients enabled; run forwards without backward under "
      "at::NoGradGuard.");
}

bool DdpCore::reducing() const {
  return at::GradMode::is_enabled() && sync_enabled_;
}

std::vector<at::Tensor> DdpCore::moduleBuffers() const {
  std::vector<at::Tensor> buffers;
  for (auto& item : eachTensorOnce(module_->named_buffers())) {
    buffers.push_back(std::move(item.second));
  }
  return buffers;
}

std::vector<at::Tensor> DdpCore::moduleStates() const {
  std::vector<at::Tensor> states;
  for (auto& item : eachTensorOnce(module_->named_parameters())) {
    states.push_back(std::move(item.second));
  }
  if (!syncsBuffersWithParameters(options_)) return states;
  for (at::Tensor& buffer : moduleBuffers())
    states.push_back(std::move(buffer));
  return states;
}

void DdpCore::syncBuffers(int source) {
  // Collected again each time, as PyTorch does, in case a module replaced a
  // buffer since the last forward.
  at::NoGradGuard no_grad;
  broadcastFrom(source, moduleBuffers());
}

bool DdpCore::syncsBuffersBeforeForward() const {
  return options_.broadcast_buffers && require_forward_param_sync_ &&
         !module_->buffers().empty();
}

void DdpCore::beforeForward(join::Joinable& self) {
  if (reducing()) {
    checkPreviousBackwardRan();
    ++num_iterations_;
    reducer_->prepare_for_forward();
  }
  // Tells a Join that this rank still trains; the reducer then divides by
  // the number of ranks that do (unless by the initial world size).
  // As the first joinable, the heartbeat also tells joined ranks whether
  // this step's backward reduces (PyTorch spends an allreduce on that).
  heartbeat_ = join::Join::notifyJoinContext(self, reducing());
  if (heartbeat_) {
    reducer_->set_forward_pass_work_handle(heartbeat_,
                                           divide_by_initial_world_size_);
  }
  try {
    // Also where the reducer notices that the last backward did not reduce
    // every bucket.
    if (at::GradMode::is_enabled()) reducer_->rebuild_buckets();
  } catch (const c10::Error& error) {
    // Wraps the reducer's error (it names no rank): not a check of ours.
    throw std::runtime_error(
        c10::str("distalgo::DistributedDataParallel on rank ", pg_->getRank(),
                 ": ", error.what_without_backtrace()));
  }
  const bool joining = self.joinConfig().enable;
  if (syncsBuffersBeforeForward()) {
    // Rank 0 may have joined and hold stale buffers: under a Join the
    // highest rank still training is the source.
    syncBuffers(joining ? findCommonRank(true) : 0);
  }
  if (joining && !self.joinConfig().is_first_joinable) {
    // Not first: no heartbeat of ours carries the flag. Tells joined ranks
    // whether this iteration's backward reduces; they wait on it, this rank
    // need not.
    std::vector<at::Tensor> requires_sync{at::full(
        {1}, reducing() ? 1.0 : 0.0, at::TensorOptions().device(device()))};
    pg_->allreduce(requires_sync);
  }
}

void DdpCore::watchForBackward(const std::vector<at::Tensor>& outputs) {
  reduction_pending_ = false;
  backward_reached_ = std::make_shared<bool>(false);
  for (const auto& output : outputs) {
    if (!output.defined() || !output.requires_grad()) continue;
    reduction_pending_ = true;
    output.register_hook(
        [reached = backward_reached_](const at::Tensor&) { *reached = true; });
  }
}

std::vector<at::Tensor> DdpCore::afterForward(
    const std::vector<at::Tensor>& outputs) {
  if (!reducing()) {
    // No sink here, unlike PyTorch: its _DDPSink changes no gradient then,
    // except that for a no_sync forward right after a static graph's first
    // iteration (num_iterations is still 1) it queues delay_all_reduce and
    // so reduces what no_sync keeps local.
    require_forward_param_sync_ = false;
    return outputs;
  }
  require_forward_param_sync_ = true;
  watchForBackward(outputs);
  // A static graph knows its unused parameters after the first iteration and
  // needs no search of the outputs.
  const bool search_unused =
      options_.find_unused_parameters && !options_.static_graph;
  reducer_->prepare_for_backward(search_unused ? outputs
                                               : std::vector<at::Tensor>{});
  const bool first_static_iteration =
      options_.static_graph && num_iterations_ == 1;
  if (!search_unused && !first_static_iteration) return outputs;
  return passThroughSink(*reducer_, first_static_iteration, outputs);
}

}  // namespace distalgo::ddp::internal
