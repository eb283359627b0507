#pragma once

// One order of collectives on every rank for hooks that issue some of their
// collectives from future callbacks (PowerSGD: P once the uncompressed sum is
// in, Q once P is). Left to timing, one rank would issue bucket 1's first
// allreduce before bucket 0's second and another rank after it, and Gloo,
// which pairs collectives by the order they are issued, would pair a P with
// a Q. Here each bucket's chain starts only once the chains appended before
// it have issued their last collective, so the order is the order the reducer
// calls the hook, the same on every rank whatever the timing.

#include <ATen/core/ivalue.h>

#include <functional>
#include <mutex>

namespace distalgo::hooks::internal {

class IssueOrder {
 public:
  using FuturePtr = c10::intrusive_ptr<c10::ivalue::Future>;
  // Issues a chain of collectives; returns a future that completes once the
  // chain has issued its last one (or fails if issuing did).
  using Chain = std::function<FuturePtr()>;

  // Runs `chain` once every chain appended before it has issued its last
  // collective (at once, on this thread, if they have). The returned future
  // fails if this chain or an earlier one failed to issue.
  FuturePtr append(Chain chain);

  // Blocks until every appended chain has issued its last collective, so
  // that what the caller issues next comes after them on every rank (the
  // reducer's own collectives after the last bucket, ZeRO's broadcasts).
  // Rethrows the error of a chain that failed to issue.
  void waitUntilIssued();

  // Forgets a finished sequence, failed or not: called at the first bucket
  // of a backward, so that an earlier backward's failure does not fail this
  // one's chains. A sequence still issuing is kept, and this backward's
  // chains follow it.
  void restartIfIdle();

 private:
  std::mutex mutex_;
  FuturePtr tail_;  // completes once every appended chain has issued
};

// One bucket's two rounds of collectives, appended to `order`: `first`
// issues the round that needs nothing else and returns the future of the
// collective the second round waits for; once it is in, `second` issues the
// second round and returns its future; `finish` turns that future into the
// bucket's result. Returns the bucket's future (failed if any step failed).
IssueOrder::FuturePtr appendTwoRounds(
    IssueOrder& order, std::function<IssueOrder::FuturePtr()> first,
    std::function<IssueOrder::FuturePtr(c10::ivalue::Future&)> second,
    std::function<IssueOrder::FuturePtr(IssueOrder::FuturePtr)> finish);

// Completes `target` as `source` completes: with its value, or its error.
void completeWhenDone(const IssueOrder::FuturePtr& source,
                      const IssueOrder::FuturePtr& target);
// Fails `target` if `source` fails (a chain that could not issue: the
// bucket's own future would otherwise never complete).
void failWhenFailed(const IssueOrder::FuturePtr& source,
                    const IssueOrder::FuturePtr& target);

}  // namespace distalgo::hooks::internal
