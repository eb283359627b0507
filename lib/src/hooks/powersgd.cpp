#include "distalgo/hooks/powersgd.h"

#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

#include <algorithm>
#include <vector>

#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/internal/orthogonalize.h"
#include "hooks/internal/forked_cpu_rng.h"
#include "hooks/internal/powersgd_warmup.h"
#include "hooks/internal/reduced_future.h"

namespace distalgo::hooks {
namespace {

using Future = c10::ivalue::Future;

// The gradients of one shape, in order of first appearance (that order fixes
// the layout of P and Q and the order of the random draws, as in PyTorch).
struct ShapeGroup {
  std::vector<std::int64_t> shape;
  std::vector<at::Tensor> matrices;  // views into the bucket
};

// One bucket's compression in flight; the callbacks share it.
struct LayerwiseStep {
  std::shared_ptr<PowerSgdState> state;
  std::size_t index = 0;
  bool is_last = false;
  at::Tensor buffer;
  at::Tensor input_copy;  // for error feedback
  std::vector<at::Tensor> uncompressed;
  std::vector<ShapeGroup> groups;
  // 3-D batches [b, n, m] and their factors [b, n, r'] and [b, m, r'].
  std::vector<at::Tensor> batches, ps, qs;
  std::vector<const ShapeGroup*> stacked;  // the group of each batch if stacked
  at::Tensor p_memory, q_memory;
  // The uncompressed gradients' sum, unpacked into the bucket.
  c10::intrusive_ptr<Future> unpacked;
};

// Sorts the bucket's gradients into those to compress (grouped by shape) and
// the rest, and counts the statistics; returns the sizes of P and Q.
std::pair<std::int64_t, std::int64_t> classify(LayerwiseStep& step,
                                               const ddp::GradBucket& bucket) {
  const PowerSgdOptions& options = step.state->options();
  std::int64_t p_size = 0, q_size = 0, before = 0, after = 0;
  for (const at::Tensor& gradient : bucket.gradients()) {
    at::Tensor matrix = gradient.view({gradient.size(0), -1});
    const std::int64_t n = matrix.size(0), m = matrix.size(1);
    const std::int64_t rank =
        std::min<std::int64_t>({n, m, options.matrix_approximation_rank});
    const std::int64_t compressed = (n + m) * rank;
    before += n * m;
    if (compressed * options.min_compression_rate < n * m) {
      after += compressed;
      p_size += n * rank;
      q_size += m * rank;
      const std::vector<std::int64_t> shape = matrix.sizes().vec();
      auto group =
          std::find_if(step.groups.begin(), step.groups.end(),
                       [&](const auto& g) { return g.shape == shape; });
      if (group == step.groups.end()) {
        step.groups.push_back({shape, {}});
        group = std::prev(step.groups.end());
      }
      group->matrices.push_back(matrix);
    } else {
      after += n * m;
      step.uncompressed.push_back(gradient);
    }
  }
  step.state->addCompressionStats(before, after);
  return {p_size, q_size};
}

// Lays out the batches and their views of P and Q memory.
void layOutBatches(LayerwiseStep& step) {
  const PowerSgdOptions& options = step.state->options();
  for (const ShapeGroup& group : step.groups) {
    if (options.batch_tensors_with_same_shape && group.matrices.size() > 1) {
      step.batches.push_back(at::stack(group.matrices));
      step.stacked.push_back(&group);
    } else {
      for (const at::Tensor& matrix : group.matrices) {
        step.batches.push_back(matrix.unsqueeze(0));
        step.stacked.push_back(nullptr);
      }
    }
  }
  std::int64_t p_offset = 0, q_offset = 0;
  for (const at::Tensor& batch : step.batches) {
    const std::int64_t b = batch.size(0), n = batch.size(1), m = batch.size(2);
    const std::int64_t rank =
        std::min<std::int64_t>({n, m, options.matrix_approximation_rank});
    step.ps.push_back(
        step.p_memory.narrow(0, p_offset, b * n * rank).view({b, n, rank}));
    step.qs.push_back(
        step.q_memory.narrow(0, q_offset, b * m * rank).view({b, m, rank}));
    p_offset += b * n * rank;
    q_offset += b * m * rank;
  }
}

// Q from the previous iteration, or fresh random directions.
void initializeQs(LayerwiseStep& step, bool draw) {
  const double epsilon = step.state->options().orthogonalization_epsilon;
  if (!draw) {
    for (const at::Tensor& q : step.qs) internal::orthogonalize(q, epsilon);
    return;
  }
  // The seed is drawn even when there is no Q, to keep the draws in step
  // with PyTorch's.
  internal::ForkedCpuRng forked(step.state->nextSeed());
  for (const at::Tensor& q : step.qs) {
    q.copy_(at::randn(q.sizes(), at::TensorOptions().dtype(q.scalar_type())));
    internal::orthogonalize(q, epsilon);
  }
}

// The uncompressed gradients' average, back into the bucket.
void unpackUncompressed(LayerwiseStep& step, Future& done,
                        const at::Tensor& uncompressed_memory) {
  internal::reducedInto(done, uncompressed_memory)
      .div_(step.state->processGroup()->getSize());
  std::int64_t offset = 0;
  for (const at::Tensor& t : step.uncompressed) {
    t.copy_(uncompressed_memory.narrow(0, offset, t.numel()).view_as(t));
    offset += t.numel();
  }
}

// From the summed P: orthogonal P, then Q = M^T P, whose sum it starts.
c10::intrusive_ptr<Future> allreduceQ(LayerwiseStep& step, Future& p_done) {
  internal::reducedInto(p_done, step.p_memory);
  const double epsilon = step.state->options().orthogonalization_epsilon;
  for (const at::Tensor& p : step.ps) internal::orthogonalize(p, epsilon);
  for (std::size_t i = 0; i < step.batches.size(); ++i) {
    at::bmm_out(step.qs[i], step.batches[i].transpose(1, 2), step.ps[i]);
  }
  return internal::allreduceAsync(*step.state->processGroup(), step.q_memory);
}

// From the summed Q: the low-rank approximation P Q^T, into the bucket.
at::Tensor decompress(LayerwiseStep& step, Future& q_done) {
  PowerSgdState& state = *step.state;
  internal::reducedInto(q_done, step.q_memory)
      .div_(state.processGroup()->getSize());
  for (std::size_t i = 0; i < step.batches.size(); ++i) {
    at::bmm_out(step.batches[i], step.ps[i], step.qs[i].transpose(1, 2));
    if (const ShapeGroup* group = step.stacked[i]) {
      for (std::size_t j = 0; j < group->matrices.size(); ++j) {
        group->matrices[j].copy_(step.batches[i][j]);
      }
    }
  }
  if (state.options().use_error_feedback) {
    state.setError(step.index, step.input_copy - step.buffer);
  }
  if (!state.options().warm_start) state.clearLowRankMemory();
  state.maybeIncreaseIteration(step.is_last);
  return step.buffer;
}

c10::intrusive_ptr<Future> compress(const std::shared_ptr<PowerSgdState>& state,
                                    internal::IssueOrder& order,
                                    ddp::GradBucket& bucket) {
  auto step = std::make_shared<LayerwiseStep>();
  step->state = state;
  step->index = bucket.index();
  step->is_last = bucket.isLast();
  step->buffer = bucket.buffer();
  const PowerSgdOptions& options = state->options();
  const at::TensorOptions tensor_options = step->buffer.options();

  if (options.use_error_feedback) {
    const at::Tensor error = state->error(step->index);
    if (error.defined()) {
      step->buffer.add_(error);
    } else {
      state->setError(step->index, at::zeros_like(step->buffer));
    }
    step->input_copy = step->buffer.clone();
  }

  const auto [p_size, q_size] = classify(*step, bucket);
  std::tie(step->p_memory, step->q_memory) = state->lowRankMemory(step->index);
  const bool draw = !options.warm_start || !step->p_memory.defined();
  if (draw) {
    step->p_memory = at::empty({p_size}, tensor_options);
    step->q_memory = at::empty({q_size}, tensor_options);
    state->setLowRankMemory(step->index, step->p_memory, step->q_memory);
  }
  layOutBatches(*step);
  initializeQs(*step, draw);
  for (std::size_t i = 0; i < step->batches.size(); ++i) {
    at::bmm_out(step->ps[i], step->batches[i], step->qs[i]);
  }

  std::vector<at::Tensor> flat;
  for (const at::Tensor& t : step->uncompressed) flat.push_back(t.view(-1));
  at::Tensor uncompressed_memory =
      flat.empty() ? at::empty({0}, tensor_options) : at::cat(flat);
  // Sum the uncompressed gradients and P (computed already), then Q once P
  // is in, after the previous bucket's chain has issued (issue_order.h).
  return internal::appendTwoRounds(
      order,
      [step, uncompressed_memory] {
        auto& pg = *step->state->processGroup();
        step->unpacked =
            internal::allreduceAsync(pg, uncompressed_memory)
                ->then(
                    [step, uncompressed_memory](Future& done) {
                      unpackUncompressed(*step, done, uncompressed_memory);
                      return c10::IValue();
                    },
                    c10::NoneType::get());
        return internal::allreduceAsync(pg, step->p_memory);
      },
      [step](Future& p_done) { return allreduceQ(*step, p_done); },
      [step](const c10::intrusive_ptr<Future>& q_reduced) {
        // The bucket is done once both sums are in.
        return step->unpacked
            ->thenAsync(
                [q_reduced](Future& unpacked) {
                  unpacked.value();  // rethrows a failed sum
                  return q_reduced;
                },
                c10::ListType::ofTensors())
            ->then(
                [step](Future& q_done) {
                  return c10::IValue(decompress(*step, q_done));
                },
                c10::TensorType::get());
      });
}

}  // namespace

ddp::CommHook powerSgdHook(std::shared_ptr<PowerSgdState> state) {
  return internal::allreduceUntilStart(std::move(state), &compress,
                                       "powerSgdHook");
}

}  // namespace distalgo::hooks
