// The parent side of a distributed test: one gtest test per world size whose
// body checks the launch conditions, starts (or reuses) the ranks, supervises
// them and turns their reports into the gtest outcome.

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>

#include "job/launched_job.h"
#include "plan/instance_plan.h"
#include "plan/registry.h"
#include "process/supervisor.h"
#include "process/worker_pool.h"
#include "ranktest/backends.h"
#include "ranktest/distributed_test.h"
#include "ranktest/settings.h"
#include "run/execute.h"
#include "run/init_guard.h"
#include "verdict/verdict.h"
#include "wire/check.h"

namespace ranktest::internal {
namespace {

std::map<std::string, TestInstance>& registry() {
  static std::map<std::string, TestInstance> instances;
  return instances;
}

std::optional<Skip> checkConditions(const TestInstance& t) {
  LaunchConditions conditions{t.world_size, t.backend, visibleGpuCount(),
                              ncclBuilt(), ncclVersion()};
  if (t.options.on_cuda && conditions.visible_gpus == 0) {
    return Skip{SkipCode::kNoCuda,
                ncclBuilt() ? "computes on a GPU, and none is visible"
                            : "computes on a GPU, and this build's libtorch "
                              "has no CUDA"};
  }
  if (t.backend == "nccl") {
    if (!conditions.nccl_built) {
      return Skip{SkipCode::kNcclMissing,
                  "BACKEND=nccl, but c10d was not compiled with NCCL support"};
    }
    // Under a launcher each host needs GPUs for its own ranks only.
    const LaunchedJob* job = LaunchedJob::current();
    const int here = job ? job->layout().local_world_size : t.world_size;
    if (conditions.visible_gpus < here) {
      return Skip{
          skipCodeForGpus(here),
          "BACKEND=nccl needs one GPU per rank: " + std::to_string(here) +
              " ranks" + (job ? " on this host, " : ", ") +
              std::to_string(conditions.visible_gpus) + " GPUs"};
    }
  }
  for (const Requirement& requirement : t.options.requirements) {
    if (auto skip = requirement(conditions)) return skip;
  }
  return std::nullopt;
}

SuperviseOptions superviseOptions(const TestInstance& t) {
  SuperviseOptions options;
  options.timeout = t.timeout();
  options.verbose = settings().verbose;
  options.tail_lines = settings().output_lines;
  return options;
}

class ParentTest : public ::testing::Test {
 public:
  explicit ParentTest(const TestInstance* instance) : instance_(instance) {}

  static void TearDownTestSuite() { WorkerPools::instance().releaseAll(); }

  void TestBody() override {
    if (std::getenv(kSpawnedEnv) != nullptr) {
      FAIL() << "[ranktest] a spawned rank ran the parent side of "
             << instance_->fullName()
             << ": this binary's main() must call ranktest::init(&argc, argv) "
                "(or link ranktest::main)";
    }
    if (!settings().error.empty()) {
      FAIL() << "[ranktest] bad environment: " << settings().error;
    }
    if (instance_->deselected) {
      GTEST_SKIP() << describeSkip(*instance_->deselected,
                                   "not in this run's cell");
    }
    // A worker that died must not kill the parent through a write.
    ::signal(SIGPIPE, SIG_IGN);
    RunPlan plan{*instance_, superviseOptions(*instance_)};
    if (LaunchedJob::current() != nullptr) {
      // Each rank checks its own host; the ranks agree before any starts.
      plan.local_skip = checkConditions(*instance_);
    } else if (auto skip = checkConditions(*instance_)) {
      GTEST_SKIP() << describeSkip(*skip, "checked before starting ranks");
    }
    const Executed executed = execute(plan);
    if (!executed.job_failure.empty()) FAIL() << executed.job_failure;
    const SuperviseResult& result = executed.result;
    const Verdict verdict =
        judge({instance_->fullName(), instance_->file, instance_->line,
               describeRun(*instance_), instance_->timeout(),
               "--gtest_filter=" + instance_->fullName()},
              result);
    for (const VerdictFailure& failure : verdict.failures) {
      ADD_FAILURE_AT(failure.file.c_str(), failure.line) << failure.text;
    }
    if (verdict.kind == Verdict::Kind::kSkipped) {
      GTEST_SKIP() << verdict.skip_message;
    }
  }

 private:
  const TestInstance* instance_;
};

}  // namespace

std::chrono::milliseconds TestInstance::groupTimeout() const {
  const std::optional<int> debugged = settings().debug_rank;
  return debugged && *debugged < world_size ? std::chrono::hours(24)
                                            : timeout();
}

const TestInstance* findTestInstance(const std::string& full_name) {
  auto it = registry().find(full_name);
  return it == registry().end() ? nullptr : &it->second;
}

std::string sizesWhereNoneHoldsAt(int world_size) {
  std::set<std::string> declared;
  for (const auto& [name, t] : registry()) {
    if (holdsAt(t.options, world_size)) return "";
    declared.insert(declaredSizes(t.options));
  }
  std::string sizes;
  for (const std::string& d : declared)
    sizes += (sizes.empty() ? "" : "; ") + d;
  return sizes;
}

}  // namespace ranktest::internal

namespace ranktest {

bool registerTest(const std::string& suite, const std::string& name,
                  const char* file, int line, TestOptions options,
                  const std::vector<TestTrait>& traits,
                  const FixtureFactory& factory) {
  internal::noteDeclaredTest();  // fails a main() without init()
  const Settings& env = settings();
  // Fixture defaults < environment < the test's own traits. WORLD_SIZE and
  // BACKEND do not override anything: they choose the cell that runs.
  if (env.start_method) options.start_method = *env.start_method;
  if (env.store) options.store = *env.store;
  if (env.reuse_processes) options.reuse_processes = *env.reuse_processes;
  if (env.check_collectives) {
    options.check_collectives = *env.check_collectives;
  }
  for (const TestTrait& trait : traits) trait.apply(options);
  options.timeout = env.scaled(options.timeout.value_or(env.default_timeout));
  internal::CellChoice cell;
  cell.world_size = env.world_size;
  cell.backend = env.backend;
  cell.built = {"gloo"};
  if (ncclBuilt()) cell.built.push_back("nccl");
  cell.declared_only = env.listing_tests;
  std::vector<internal::PlannedInstance> planned;
  try {
    planned = internal::planInstances(options, cell);
  } catch (const std::invalid_argument& error) {
    RANKTEST_FAIL_STATE("ranktest: " + suite + "." + name + " (" + file + ":" +
                        std::to_string(line) + ") " + error.what());
  }
  for (const internal::PlannedInstance& instance : planned) {
    internal::TestInstance t;
    t.suite = suite;
    t.name = name + "/" + instance.suffix();
    t.file = file;
    t.line = line;
    t.world_size = instance.world_size;
    t.backend = instance.backend;
    t.options = options;
    t.deselected = instance.deselected;
    t.factory = factory;
    const std::string full_name = t.fullName();
    if (internal::registry().count(full_name) != 0) {
      RANKTEST_FAIL_STATE("ranktest: two distributed tests are named " +
                          full_name);
    }
    const internal::TestInstance* stored =
        &internal::registry()
             .insert_or_assign(full_name, std::move(t))
             .first->second;
    ::testing::RegisterTest(stored->suite.c_str(), stored->name.c_str(),
                            nullptr, nullptr, file, line,
                            [stored]() -> internal::ParentTest* {
                              return new internal::ParentTest(stored);
                            });
  }
  return true;
}

}  // namespace ranktest
