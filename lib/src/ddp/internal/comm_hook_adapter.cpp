#include "ddp/internal/comm_hook_adapter.h"

#include <c10/util/StringUtil.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <vector>

#include "ddp/internal/hang_note.h"

namespace distalgo::ddp::internal {
namespace {

// Its errors are std::runtime_error (docs/errors.md): they surface out of
// backward() and report what a hook did while it ran, which no check of an
// argument or of a state could have refused beforehand.
class CallableCommHook : public c10d::CommHookInterface {
 public:
  CallableCommHook(CommHook hook, std::string name, int rank)
      : hook_(std::move(hook)), name_(std::move(name)), rank_(rank) {}

  ~CallableCommHook() override { forgetPass(); }

  c10::intrusive_ptr<c10::ivalue::Future> runHook(
      c10d::GradBucket& bucket) override {
    // Before the hook runs: a hook may replace the bucket's buffer (e.g.
    // with its compressed copy).
    const at::Tensor buffer = bucket.getBuffer();
    GradBucket view(bucket);
    c10::intrusive_ptr<c10::ivalue::Future> future;
    // The hook's own exception is nested in ours, so that its throw site
    // (the user's file:line) stays reachable: the ranktest harness reports
    // where the innermost exception was thrown.
    try {
      const ScopedHangNote running(where(bucket.getIndex()) +
                                   ": called {age} ago and still running");
      future = hook_(view);
    } catch (const c10::Error& error) {
      std::throw_with_nested(
          std::runtime_error(where(bucket.getIndex()) +
                             " threw: " + error.what_without_backtrace()));
    } catch (const std::exception& error) {
      std::throw_with_nested(std::runtime_error(where(bucket.getIndex()) +
                                                " threw: " + error.what()));
    }
    if (!future) {
      throw std::runtime_error(where(bucket.getIndex()) +
                               " returned no future");
    }
    remember(bucket.getIndex(), buffer, future, notePending(bucket, future));
    return future;
  }

  // The reducer parses the buckets' results in bucket order, once every
  // hook of the pass has run, and writes each bucket's gradients right
  // after parsing it: so all results are checked at the first parse.
  at::Tensor parseHookResult(const c10::IValue& result) override {
    at::Tensor tensor = firstTensorOf(result);
    if (!tensor.defined()) {
      throw std::runtime_error(
          "communication hook '" + name_ +
          "' must return a future of a tensor or of a list of tensors; on "
          "rank " +
          std::to_string(rank_) + " its future holds " + result.tagKind());
    }
    if (parsed_ == 0) checkEveryResult();
    if (++parsed_ >= launched_.size()) forgetPass();
    return tensor;
  }

 private:
  struct Launched {
    std::size_t index;
    at::Tensor buffer;  // the bucket's, as the hook was given it
    c10::intrusive_ptr<c10::ivalue::Future> future;
    std::uint64_t pending_note;  // hang_note.h; removed once it completes
  };

  // A hang note for the future until it completes: a future never completed
  // hangs the reducer's finalize_backward, whose stack cannot name the hook.
  std::uint64_t notePending(
      const c10d::GradBucket& bucket,
      const c10::intrusive_ptr<c10::ivalue::Future>& future) {
    const std::uint64_t note =
        addHangNote(where(bucket.getIndex()) +
                    ": its future was returned {age} ago and never completed");
    // Runs at once if the future has completed already.
    future->addCallback([note](c10::ivalue::Future&) { removeHangNote(note); });
    return note;
  }

  // A bucket index seen again starts a new pass: the last one was not
  // parsed (Join's shadowed rounds run hooks outside the reducer's backward)
  // or failed part way.
  void remember(std::size_t index, const at::Tensor& buffer,
                const c10::intrusive_ptr<c10::ivalue::Future>& future,
                std::uint64_t pending_note) {
    const bool seen =
        std::any_of(launched_.begin(), launched_.end(),
                    [&](const Launched& l) { return l.index == index; });
    if (seen) forgetPass();
    launched_.push_back({index, buffer, future, pending_note});
  }

  // Nothing waits for a forgotten pass's futures: neither do its notes.
  void forgetPass() {
    for (const Launched& l : launched_) removeHangNote(l.pending_note);
    launched_.clear();
    parsed_ = 0;
  }

  void checkEveryResult() {
    std::sort(
        launched_.begin(), launched_.end(),
        [](const Launched& a, const Launched& b) { return a.index < b.index; });
    for (const Launched& l : launched_) {
      l.future->wait();
      // A failed future is the reducer's to report when it reaches it.
      if (l.future->hasError()) continue;
      const at::Tensor result = firstTensorOf(l.future->value());
      if (result.defined()) {
        checkHookResult(name_, rank_, l.index, l.buffer, result);
      }
    }
  }

  std::string where(std::size_t bucket_index) const {
    return "communication hook '" + name_ + "' on rank " +
           std::to_string(rank_) + " (bucket " + std::to_string(bucket_index) +
           ")";
  }

  CommHook hook_;
  std::string name_;
  int rank_;
  std::vector<Launched> launched_;  // this pass's hooks, in launch order
  std::size_t parsed_ = 0;          // results of this pass parsed so far
};

}  // namespace

std::unique_ptr<c10d::CommHookInterface> adaptCommHook(CommHook hook,
                                                       std::string name,
                                                       int rank) {
  return std::make_unique<CallableCommHook>(std::move(hook), std::move(name),
                                            rank);
}

void checkHookResult(const std::string& hook_name, int rank,
                     std::size_t bucket_index, const at::Tensor& bucket_buffer,
                     const at::Tensor& result) {
  if (result.numel() == bucket_buffer.numel() &&
      result.scalar_type() == bucket_buffer.scalar_type()) {
    return;
  }
  throw std::runtime_error(
      c10::str("communication hook '", hook_name, "' on rank ", rank,
               " (bucket ", bucket_index, ") returned ", result.numel(),
               " elements of ", result.scalar_type(), " for a bucket of ",
               bucket_buffer.numel(), " elements of ",
               bucket_buffer.scalar_type(), "; no gradient was written"));
}

}  // namespace distalgo::ddp::internal
