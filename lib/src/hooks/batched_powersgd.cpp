#include <ATen/ATen.h>
#include <ATen/core/ivalue.h>

#include <cmath>

#include "distalgo/hooks/default_hooks.h"
#include "distalgo/hooks/internal/orthogonalize.h"
#include "distalgo/hooks/powersgd.h"
#include "hooks/internal/forked_cpu_rng.h"
#include "hooks/internal/powersgd_warmup.h"
#include "hooks/internal/reduced_future.h"
#include "internal/check.h"

namespace distalgo::hooks {
namespace {

using Future = c10::ivalue::Future;

// One bucket's compression in flight; the callbacks share it.
struct BatchedStep {
  std::shared_ptr<PowerSgdState> state;
  std::size_t index = 0;
  bool is_last = false;
  at::Tensor buffer;
  at::Tensor padded;      // the buffer, zero-padded to side * side
  at::Tensor matrix;      // padded viewed as side x side
  at::Tensor input_copy;  // for error feedback
  at::Tensor p, q;        // side x r
};

// From the summed Q: the low-rank approximation P Q^T, into the bucket.
at::Tensor decompress(BatchedStep& step, Future& q_done, std::int64_t length) {
  PowerSgdState& state = *step.state;
  internal::reducedInto(q_done, step.q).div_(state.processGroup()->getSize());
  at::matmul_out(step.matrix, step.p, step.q.t());
  if (state.options().use_error_feedback) {
    state.setError(step.index, step.input_copy - step.padded);
  }
  if (!state.options().warm_start) state.clearLowRankMemory();
  step.buffer.copy_(step.padded.narrow(0, 0, length));
  state.maybeIncreaseIteration(step.is_last);
  return step.buffer;
}

c10::intrusive_ptr<Future> compress(const std::shared_ptr<PowerSgdState>& state,
                                    internal::IssueOrder& order,
                                    ddp::GradBucket& bucket) {
  auto step = std::make_shared<BatchedStep>();
  step->state = state;
  step->index = bucket.index();
  step->is_last = bucket.isLast();
  step->buffer = bucket.buffer();
  const PowerSgdOptions& options = state->options();
  const std::int64_t length = step->buffer.numel();
  const std::int64_t rank = options.matrix_approximation_rank;
  // As PyTorch computes it, in double precision.
  const auto side = static_cast<std::int64_t>(
      std::ceil(std::sqrt(static_cast<double>(length))));
  // PyTorch fails here in its orthogonalisation, with a message about
  // matrix shapes.
  DISTALGO_CHECK_ARG(rank <= side,
                     "distalgo::hooks::batchedPowerSgdHook: "
                     "matrix_approximation_rank ",
                     rank, " exceeds the side of bucket ", step->index,
                     "'s square matrix, ", side, " (the bucket's ", length,
                     " elements, padded to ", side, " x ", side,
                     "): use a rank of at most ", side, ", or larger buckets");
  state->addCompressionStats(length, side * rank * 2);

  // PyTorch resizes the bucket's buffer in place; a padded copy leaves the
  // reducer's views of the buffer intact and computes the same.
  step->padded = at::zeros({side * side}, step->buffer.options());
  step->padded.narrow(0, 0, length).copy_(step->buffer);
  if (options.use_error_feedback) {
    const at::Tensor error = state->error(step->index);
    if (error.defined()) {
      step->padded.add_(error);
    } else {
      state->setError(step->index, at::zeros_like(step->padded));
    }
    step->input_copy = step->padded.clone();
  }
  step->matrix = step->padded.view({side, side});

  std::tie(step->p, step->q) = state->lowRankMemory(step->index);
  if (!options.warm_start || !step->p.defined()) {
    step->p = at::empty({side, rank}, step->buffer.options());
    internal::ForkedCpuRng forked(state->nextSeed());
    step->q = at::randn({side, rank},
                        at::TensorOptions().dtype(step->buffer.scalar_type()))
                  .to(step->buffer.device());
    state->setLowRankMemory(step->index, step->p, step->q);
  }
  // PyTorch (1.13 and 2.11) passes the 2-D factors here, and no epsilon,
  // and fails its own 3-D check.
  const double epsilon = options.orthogonalization_epsilon;
  internal::orthogonalize(step->q.unsqueeze(0), epsilon);
  at::matmul_out(step->p, step->matrix, step->q);

  // Sum P, then Q once P is in; the chain starts after the previous
  // bucket's has issued.
  return internal::appendTwoRounds(
      order,
      [step] {
        return internal::allreduceAsync(*step->state->processGroup(), step->p);
      },
      [step, epsilon](Future& p_done) {
        internal::reducedInto(p_done, step->p);
        internal::orthogonalize(step->p.unsqueeze(0), epsilon);
        at::matmul_out(step->q, step->matrix.t(), step->p);
        return internal::allreduceAsync(*step->state->processGroup(), step->q);
      },
      [step, length](const c10::intrusive_ptr<Future>& q_reduced) {
        return q_reduced->then(
            [step, length](Future& q_done) {
              return c10::IValue(decompress(*step, q_done, length));
            },
            c10::TensorType::get());
      });
}

}  // namespace

ddp::CommHook batchedPowerSgdHook(std::shared_ptr<PowerSgdState> state) {
  return internal::allreduceUntilStart(std::move(state), &compress,
                                       "batchedPowerSgdHook");
}

}  // namespace distalgo::hooks
