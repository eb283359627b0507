#include "hooks/internal/issue_order.h"

#include <exception>
#include <utility>

namespace distalgo::hooks::internal {

IssueOrder::FuturePtr IssueOrder::append(Chain chain) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!tail_) {
    tail_ = c10::make_intrusive<c10::ivalue::Future>(c10::NoneType::get());
    tail_->markCompleted();
  }
  // thenAsync fails the link, without running `chain`, if an earlier one
  // failed: its collectives would be out of order.
  tail_ = tail_->thenAsync(
      [chain = std::move(chain)](c10::ivalue::Future& previous) {
        if (previous.hasError()) {
          std::rethrow_exception(previous.exception_ptr());
        }
        return chain();
      },
      c10::NoneType::get());
  return tail_;
}

void IssueOrder::waitUntilIssued() {
  FuturePtr tail;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tail = tail_;
  }
  if (!tail) return;
  tail->wait();
  if (tail->hasError()) std::rethrow_exception(tail->exception_ptr());
}

void IssueOrder::restartIfIdle() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (tail_ && tail_->completed()) tail_.reset();
}

IssueOrder::FuturePtr appendTwoRounds(
    IssueOrder& order, std::function<IssueOrder::FuturePtr()> first,
    std::function<IssueOrder::FuturePtr(c10::ivalue::Future&)> second,
    std::function<IssueOrder::FuturePtr(IssueOrder::FuturePtr)> finish) {
  using Future = c10::ivalue::Future;
  auto result = c10::make_intrusive<Future>(c10::TensorType::get());
  auto issued =
      order.append([first = std::move(first), second = std::move(second),
                    finish = std::move(finish), result] {
        // Completes once the second round is issued: the next chain may start.
        auto second_issued = c10::make_intrusive<Future>(c10::NoneType::get());
        first()->addCallback(
            [second, finish, second_issued, result](Future& first_done) {
              IssueOrder::FuturePtr second_done;
              try {
                second_done = second(first_done);
              } catch (const std::exception&) {
                // Fails this link, and so `result` and every later chain.
                second_issued->setError(std::current_exception());
                return;
              }
              second_issued->markCompleted();
              try {
                completeWhenDone(finish(second_done), result);
              } catch (const std::exception&) {
                result->setErrorIfNeeded(std::current_exception());
              }
            });
        return second_issued;
      });
  failWhenFailed(issued, result);
  return result;
}

void completeWhenDone(const IssueOrder::FuturePtr& source,
                      const IssueOrder::FuturePtr& target) {
  source->addCallback([target](c10::ivalue::Future& done) {
    if (done.hasError()) {
      target->setErrorIfNeeded(done.exception_ptr());
    } else if (!target->completed()) {
      target->markCompleted(done.value(), done.storages());
    }
  });
}

void failWhenFailed(const IssueOrder::FuturePtr& source,
                    const IssueOrder::FuturePtr& target) {
  source->addCallback([target](c10::ivalue::Future& done) {
    if (done.hasError()) target->setErrorIfNeeded(done.exception_ptr());
  });
}

}  // namespace distalgo::hooks::internal
