#include "rank/rank_runner.h"

#include <c10/util/Exception.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <vector>

#include "plan/registry.h"
#include "process/rendezvous.h"
#include "rank/exception_chain.h"
#include "rank/process_group_factory.h"
#include "rank/rank_signals.h"
#include "rank/test_groups.h"
#include "rank/throw_sites.h"
#include "ranktest/collective_check.h"
#include "ranktest/distributed_test.h"
#include "ranktest/run_ranks.h"
#include "torch_compat/error.h"
#include "wire/record.h"

namespace ranktest {
namespace internal {
namespace {

// ci/cluster --fault-armed waits for this file before it counts down to its
// fault: a test body that starts creates it, so that the fault meets a test
// of any suite, not a job still forming.
void armTheClustersFault() {
  const char* armed = std::getenv("RANKTEST_CLUSTER_FAULT_ARMED");
  if (armed == nullptr || *armed == '\0') return;
  const int fd = ::open(armed, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) ::close(fd);
}

// Thrown by skipRank(); caught by the runner.
struct SkipRankSignal {
  SkipCode code;
  std::string message;
};

// Sends every gtest result part of the current body to the parent at once, so
// that failures before a crash are not lost.
class ReportingListener : public ::testing::EmptyTestEventListener {
 public:
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (result.skipped()) {
      skipped_ = true;
      sendResult(kResultFd, Skip{SkipCode::kGeneric, result.message()});
      return;
    }
    if (!result.failed()) return;
    failed_ = true;
    fatal_ = fatal_ || result.fatally_failed();
    sendResult(kResultFd,
               RankFailure{result.file_name() ? result.file_name() : "",
                           result.line_number(), result.message()});
  }

  void reset() { failed_ = fatal_ = skipped_ = false; }
  bool failed() const { return failed_; }
  bool fatal() const { return fatal_; }
  bool skipped() const { return skipped_; }

 private:
  bool failed_ = false;
  bool fatal_ = false;
  bool skipped_ = false;
};

ReportingListener* g_listener = nullptr;

// Routes gtest's results to the parent and silences the rank's own printers:
// the parent is the only one that reports, and the only one writing XML.
void takeOverGtestOutput() {
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_result_printer());
  delete listeners.Release(listeners.default_xml_generator());
  g_listener = new ReportingListener;
  listeners.Append(g_listener);
}

void reportException(const std::string& type, const std::string& message) {
  sendResult(kResultFd, RankException{type, message});
}

// Prints where the innermost recorded exception of `chain` was thrown; false
// when none was recorded. A library that adds context nests the original
// (std::throw_with_nested), whose stack is the one that leads to the cause.
bool printInnermostThrowSite(const std::vector<ChainedException>& chain) {
  for (std::size_t i = chain.size(); i-- > 0;) {
    const std::exception* error = chain[i].error;
    if (error == nullptr) continue;
    const std::string reason =
        i == 0 ? "where the uncaught exception was thrown"
               : "where its nested exception " + chain[i].type +
                     " was thrown (nesting level " + std::to_string(i) + ")";
    if (!printThrowSite(dynamic_cast<const void*>(error), reason.c_str())) {
      continue;
    }
    // libtorch's own backtrace repeats the recorded stack without file and
    // line; its first line, the source location in libtorch, is kept.
    if (const auto* c10_error = dynamic_cast<const c10::Error*>(error)) {
      const std::string trace = torch_compat::backtraceText(*c10_error);
      std::cerr << trace.substr(0, trace.find('\n')) << std::endl;
    }
    return true;
  }
  return false;
}

// The exception's type and text, those of the exceptions nested in it, and
// where the innermost of them was thrown.
void reportUncaught(const std::exception& error) {
  const std::vector<ChainedException> chain = exceptionChain(error);
  std::string message = chain.front().message;
  for (std::size_t i = 1; i < chain.size(); ++i) {
    message += "\nnested " + chain[i].type + ": " + chain[i].message;
  }
  reportException(chain.front().type, message);
  if (printInnermostThrowSite(chain)) return;
  if (dynamic_cast<const c10::Error*>(&error) != nullptr) {
    std::cerr << error.what() << std::endl;  // with libtorch's backtrace
  }
}

}  // namespace

// Runs bodies in this rank and turns how they end into an exit code.
class RankRunner {
 public:
  // Runs `body` on the group `acquire` gives (building it may throw and is
  // reported as this body's failure), wrapped in the collective-mismatch
  // check when asked; leaves the group in `*used`. Returns the exit code the
  // outcome stands for.
  template <typename Acquire>
  static int run(const RankLaunch& launch, Acquire acquire, TestGroup* used,
                 bool check_collectives, bool on_cuda,
                 const std::function<void(const Rank&)>& body) {
    g_listener->reset();
    std::optional<SkipRankSignal> skip;
    bool threw = false;
    try {
      Rank context;
      context.rank = launch.rank;
      context.world_size = launch.world_size;
      context.local_rank = launch.local_rank.value_or(launch.rank);
      context.local_world_size =
          launch.local_world_size.value_or(launch.world_size);
      context.node_rank = launch.node_rank.value_or(0);
      context.backend = launch.backend;
      context.device = on_cuda ? cudaDevice(context.local_rank)
                               : rankDevice(launch.backend, context.local_rank);
      *used = acquire();
      context.store = used->store;
      context.pg = check_collectives
                       ? withCollectiveCheck(used->pg, used->store,
                                             launch.timeout, launch.gloo_host)
                       : used->pg;
      body(context);
    } catch (const SkipRankSignal& signal) {
      skip = signal;
    } catch (const std::exception& error) {
      threw = true;
      reportUncaught(error);
    } catch (...) {
      threw = true;
      reportException("unknown",
                      "an exception not derived from std::exception");
    }
    if (skip) {
      sendResult(kResultFd, Skip{skip->code, skip->message});
    }
    if (threw || g_listener->failed()) return kTestErrorExitCode;
    if (skip) return static_cast<int>(skip->code);
    if (g_listener->skipped()) return static_cast<int>(SkipCode::kGeneric);
    return 0;
  }

  // A fixture's life in one rank: construction, SetUp, the body unless SetUp
  // failed fatally or skipped, and TearDown even when they throw (gtest's
  // semantics).
  static void runFixture(const TestInstance& instance, const Rank& context) {
    std::unique_ptr<DistributedTest> fixture = instance.factory();
    fixture->context_ = &context;
    try {
      fixture->SetUp();
      if (!g_listener->fatal() && !g_listener->skipped()) {
        armTheClustersFault();
        fixture->rankBody();
      }
    } catch (...) {
      fixture->TearDown();
      throw;
    }
    fixture->TearDown();
  }
};

namespace {

void flushOutput() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
}

[[noreturn]] void finishAndExit(int code) {
  // Output first: the parent drains it once it sees kFinished.
  flushOutput();
  sendResult(kResultFd, FinishedRecord{code});
  // Skip static destructors and atexit handlers: libtorch and Gloo threads
  // may still be alive, and the parent's objects (in a forked rank) are not
  // ours to destroy.
  ::_exit(code);
}

const TestInstance& lookup(const std::string& full_name) {
  const TestInstance* instance = findTestInstance(full_name);
  if (instance == nullptr) {
    reportException("ranktest::UnknownTest",
                    "no distributed test named '" + full_name +
                        "' in this binary (registered with other "
                        "WORLD_SIZE/BACKEND settings?)");
    flushOutput();
    ::_exit(kTestErrorExitCode);
  }
  return *instance;
}

// The parent prints how to attach: its stderr is shown even when the rank's
// output is not.
void waitForDebugger() {
  sendResult(kResultFd, DebugWaitingRecord{::getpid()});
  ::raise(SIGSTOP);
}

// What every rank does first: crash and stack handlers, gtest's results to
// the parent, and the debugger wait when asked.
void prepareRank(const RankLaunch& launch) {
  installRankSignalHandlers(launch.rank);
  recordThrowSites();
  takeOverGtestOutput();
  if (launch.debug_wait) waitForDebugger();
}

TestGroup buildOneShotGroup(const RankLaunch& launch) {
  c10::intrusive_ptr<c10d::Store> store =
      connectStore(launch.store, launch.world_size, launch.timeout);
  if (!launch.store_prefix.empty()) {
    store = c10::make_intrusive<c10d::PrefixStore>(launch.store_prefix, store);
  }
  return buildTestGroup(launch, store);
}

std::function<void(const Rank&)> fixtureBody(const TestInstance& instance) {
  return [&instance](const Rank& context) {
    RankRunner::runFixture(instance, context);
  };
}

}  // namespace

void runRankProcess(const RankLaunch& launch) {
  prepareRank(launch);
  if (!launch.test.empty()) {
    TestGroup group;
    const TestInstance& instance = lookup(launch.test);
    finishAndExit(RankRunner::run(
        launch, [&] { return buildOneShotGroup(launch); }, &group,
        instance.options.check_collectives, instance.options.on_cuda,
        fixtureBody(instance)));
  }
  // A reused worker: a fresh group per test, each built ahead of its test.
  WorkerGroups groups(launch);
  while (const std::optional<RunRecord> command = receiveRun(kControlFd)) {
    TestGroup group;
    const TestInstance& instance = lookup(command->test);
    const int code = RankRunner::run(
        launch, [&] { return groups.take(command->sequence); }, &group,
        instance.options.check_collectives, instance.options.on_cuda,
        fixtureBody(instance));
    flushOutput();
    sendResult(kResultFd, FinishedRecord{code});
    groups.retire(std::move(group));
  }
  flushOutput();
  ::_exit(0);
}

void runRankBody(const RankLaunch& launch,
                 const std::function<void(const Rank&)>& body) {
  prepareRank(launch);
  TestGroup group;
  finishAndExit(RankRunner::run(
      launch, [&] { return buildOneShotGroup(launch); }, &group,
      launch.check_collectives, /*on_cuda=*/false, body));
}

}  // namespace internal

void skipRank(SkipCode code, std::string message) {
  throw internal::SkipRankSignal{code, std::move(message)};
}

int DistributedTest::rank() const { return context_->rank; }
int DistributedTest::worldSize() const { return context_->world_size; }
int DistributedTest::localRank() const { return context_->local_rank; }
int DistributedTest::localWorldSize() const {
  return context_->local_world_size;
}
int DistributedTest::nodeRank() const { return context_->node_rank; }
const c10::intrusive_ptr<c10d::ProcessGroup>& DistributedTest::pg() const {
  return context_->pg;
}
const c10::intrusive_ptr<c10d::Store>& DistributedTest::store() const {
  return context_->store;
}
const std::string& DistributedTest::backend() const {
  return context_->backend;
}
c10::Device DistributedTest::device() const { return context_->device; }

}  // namespace ranktest
