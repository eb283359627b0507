// bench_harness_overhead: the fixed cost of one distributed test (start the
// ranks, rendezvous, build the Gloo group, one barrier, report) for the fork
// and spawn start methods and for reused fork workers, at several world sizes.
//
// Every cell is a gtest suite of distinct registered tests; a listener times
// each test from OnTestStart to OnTestEnd with std::chrono::steady_clock. The
// ranks stamp their progress (process alive, group ready, body start and end,
// TearDown done) on a small shared "board" file with the same clock
// (CLOCK_MONOTONIC, comparable across processes), and pthread_atfork handlers
// time the parent's fork() calls, which gives a timeline of each test.
// "bare" cells do the same work with no harness (fork or exec, FileStore,
// Gloo group, barrier, exit, waitpid): the difference to them is the
// harness's own work.
//
// Usually run through bench/run_harness_overhead, which also measures
// PyTorch's MultiProcessTestCase and writes bench/results/harness_overhead.md.
//
// Flags (all optional; gtest flags work too, --gtest_filter included):
//   --bench_runs=N           samples per fork, reuse and bare fork cell (30)
//   --bench_spawn_runs=N     samples per spawn and bare spawn cell (20)
//   --bench_reuse_pools=N    pools per reuse cell; each pays one pool start (3)
//   --bench_world_sizes=2,4,8
//   --bench_modes=bare_fork,fork,reuse,bare_spawn,spawn
//   --bench_bare_spawn_world_sizes=2
//   --bench_pytorch=FILE     PyTorch samples (TSV of bench/pytorch_overhead.py)
//   --bench_pytorch_note=TXT why the PyTorch column is missing, if it is
//   --bench_markdown=FILE    write the report there
//   --bench_command=TXT      the command line to quote in the report
//   --bench_raw=FILE         every sample, one TSV line each
//   --bench_note=TXT         a line for the report's run section (repeatable)

#include <fcntl.h>
#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <torch/version.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <vector>

#include "ranktest/ranktest.h"

namespace {

// ---------------------------------------------------------------------------
// Clock, board and fork timing.

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::int64_t threadCpuNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// When this process image finished loading (libtorch and all): the start of
// a spawned rank.
const std::int64_t g_image_ns = nowNs();
// When this process came to life: set by the fork child handler in a forked
// rank, from g_image_ns in a spawned one.
std::int64_t g_alive_ns = 0;

// The parent's fork() calls during the current test.
struct ForkTimes {
  int count = 0;
  std::int64_t first_ns = 0;  // first prepare handler
  std::int64_t last_ns = 0;   // last parent handler (fork returned)
  std::int64_t begin_ns = 0;  // the current call's prepare handler
  std::int64_t sum_ns = 0;    // wall time inside fork()
  std::int64_t begin_cpu_ns = 0;
  std::int64_t cpu_ns = 0;  // parent thread CPU inside fork()
};
ForkTimes g_forks;

void forkPrepare() {
  g_forks.begin_cpu_ns = threadCpuNs();
  g_forks.begin_ns = nowNs();
  if (g_forks.count == 0) g_forks.first_ns = g_forks.begin_ns;
}
void forkParent() {
  const std::int64_t t = nowNs();
  g_forks.sum_ns += t - g_forks.begin_ns;
  g_forks.last_ns = t;
  g_forks.cpu_ns += threadCpuNs() - g_forks.begin_cpu_ns;
  ++g_forks.count;
}
void forkChild() { g_alive_ns = nowNs(); }

constexpr char kBoardEnv[] = "RANKTEST_BENCH_BOARD";
constexpr int kMaxRanks = 64;

// What one rank stamps on the board (steady_clock ns; 0: not reached).
struct Slot {
  std::int64_t pid = 0;
  std::int64_t alive_ns = 0;
  std::int64_t pg_ready_ns = 0;
  std::int64_t body_start_ns = 0;
  std::int64_t body_end_ns = 0;
  std::int64_t done_ns = 0;
  std::int64_t group_gone_ns = 0;  // bare ranks: group and store destroyed
};
using Board = std::array<Slot, kMaxRanks>;

// From a rank: one pwrite of its slot.
void stampBoard(int rank, const Slot& slot) {
  const char* path = std::getenv(kBoardEnv);
  if (path == nullptr || rank < 0 || rank >= kMaxRanks) return;
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  const off_t offset = static_cast<off_t>(rank) * sizeof(Slot);
  if (::pwrite(fd, &slot, sizeof(slot), offset) != sizeof(slot)) {
    std::fprintf(stderr, "[bench] rank %d could not stamp the board\n", rank);
  }
  ::close(fd);
}

// The parent's side of the board: created before the tests, its path in the
// environment for the ranks.
class BoardFile {
 public:
  void create() {
    const char* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/ranktest-bench.XXXXXX";
    fd_ = ::mkostemp(path_.data(), O_CLOEXEC);
    if (fd_ < 0) {
      std::perror("[bench] mkostemp");
      std::exit(1);
    }
    ::setenv(kBoardEnv, path_.c_str(), 1);
    clear();
  }
  void clear() {
    const Board empty{};
    if (::pwrite(fd_, empty.data(), sizeof(empty), 0) != sizeof(empty)) {
      std::perror("[bench] clearing the board");
    }
  }
  Board read() const {
    Board board{};
    if (::pread(fd_, board.data(), sizeof(board), 0) != sizeof(board)) {
      board = Board{};
    }
    return board;
  }
  void remove() {
    if (fd_ < 0) return;
    ::close(fd_);
    ::unlink(path_.c_str());
    fd_ = -1;
  }

 private:
  std::string path_;
  int fd_ = -1;
};
BoardFile g_board;

// ---------------------------------------------------------------------------
// The measured test: one barrier.

class Barrier : public ranktest::DistributedTest {
 public:
  Barrier() { slot_.pg_ready_ns = nowNs(); }

 protected:
  void TearDown() override {
    slot_.pid = ::getpid();
    slot_.alive_ns = g_alive_ns;
    slot_.done_ns = nowNs();
    stampBoard(rank(), slot_);
  }

 private:
  void rankBody() override {
    slot_.body_start_ns = nowNs();
    pg()->barrier()->wait();
    slot_.body_end_ns = nowNs();
  }

  Slot slot_;
};

std::unique_ptr<ranktest::DistributedTest> makeBarrier() {
  return std::make_unique<Barrier>();
}

// ---------------------------------------------------------------------------
// The baseline: the same work with no harness at all.

constexpr char kBareRankFlag[] = "--bench_bare_rank=";

c10::intrusive_ptr<c10d::ProcessGroup> glooGroup(
    const c10::intrusive_ptr<c10d::Store>& store, int rank, int world_size) {
  // As the harness builds it: loopback device, 60 s timeout, 2 threads.
  auto options =
      c10d::ProcessGroupGloo::Options::create(std::chrono::seconds(60));
  options->devices.push_back(
      c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
  return c10::make_intrusive<c10d::ProcessGroupGloo>(store, rank, world_size,
                                                     options);
}

// In a bare rank (forked, or exec'ed with kBareRankFlag): never returns.
[[noreturn]] void runBareRank(int rank, int world_size, int store_fd) {
  int code = 0;
  try {
    Slot slot;
    slot.pid = ::getpid();
    slot.alive_ns = g_alive_ns;
    {
      c10::intrusive_ptr<c10d::Store> store =
          c10::make_intrusive<c10d::FileStore>(
              "/proc/self/fd/" + std::to_string(store_fd), world_size);
      auto pg = glooGroup(store, rank, world_size);
      slot.pg_ready_ns = slot.body_start_ns = nowNs();
      pg->barrier()->wait();
      slot.body_end_ns = slot.done_ns = nowNs();
      // Destroyed before exit, as in a ranktest rank.
      pg.reset();
      store.reset();
      slot.group_gone_ns = nowNs();
      stampBoard(rank, slot);
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "[bench] bare rank %d: %s\n", rank, error.what());
    code = 1;
  }
  std::fflush(nullptr);
  ::_exit(code);
}

std::string g_argv0;

class BareTest : public ::testing::Test {
 public:
  BareTest(int world_size, bool spawn)
      : world_size_(world_size), spawn_(spawn) {}

  void TestBody() override {
    const char* tmp = std::getenv("TMPDIR");
    std::string path =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/ranktest-bare.XXXXXX";
    // Not close-on-exec: exec'ed ranks inherit it.
    const int store_fd = ::mkstemp(path.data());
    ASSERT_GE(store_fd, 0) << std::strerror(errno);
    ::unlink(path.c_str());
    // Built before fork: the child only execs.
    std::vector<std::string> flags;
    for (int rank = 0; rank < world_size_; ++rank) {
      flags.push_back(kBareRankFlag + std::to_string(rank) + "," +
                      std::to_string(world_size_) + "," +
                      std::to_string(store_fd));
    }
    const pid_t parent = ::getpid();
    std::vector<pid_t> pids;
    for (int rank = 0; rank < world_size_; ++rank) {
      const pid_t pid = ::fork();
      ASSERT_GE(pid, 0) << std::strerror(errno);
      if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(1);
        if (spawn_) {
          char* argv[] = {g_argv0.data(), flags[rank].data(), nullptr};
          ::execv("/proc/self/exe", argv);
          ::_exit(127);
        }
        runBareRank(rank, world_size_, store_fd);
      }
      pids.push_back(pid);
    }
    for (std::size_t rank = 0; rank < pids.size(); ++rank) {
      int status = 0;
      while (::waitpid(pids[rank], &status, 0) < 0 && errno == EINTR) {
      }
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
          << "bare rank " << rank << " ended with status " << status;
    }
    ::close(store_fd);
  }

 private:
  int world_size_;
  bool spawn_;
};

// ---------------------------------------------------------------------------
// Configuration and cells.

enum class Mode {
  kBareFork,
  kFork,
  kReuse,
  kForkTcp,
  kReuseTcp,
  kBareSpawn,
  kSpawn
};

constexpr Mode kAllModes[] = {
    Mode::kBareFork, Mode::kFork,      Mode::kReuse, Mode::kForkTcp,
    Mode::kReuseTcp, Mode::kBareSpawn, Mode::kSpawn};

const char* modeName(Mode mode) {
  switch (mode) {
    case Mode::kBareFork:
      return "bare_fork";
    case Mode::kFork:
      return "fork";
    case Mode::kReuse:
      return "reuse";
    case Mode::kForkTcp:
      return "fork_tcp";
    case Mode::kReuseTcp:
      return "reuse_tcp";
    case Mode::kBareSpawn:
      return "bare_spawn";
    case Mode::kSpawn:
      return "spawn";
  }
  return "?";
}

const char* modeLabel(Mode mode) {
  switch (mode) {
    case Mode::kBareFork:
      return "bare fork (no harness)";
    case Mode::kFork:
      return "fork";
    case Mode::kReuse:
      return "reuse (per test)";
    case Mode::kForkTcp:
      return "fork, TCPStore";
    case Mode::kReuseTcp:
      return "reuse, TCPStore (per test)";
    case Mode::kBareSpawn:
      return "bare spawn (no harness)";
    case Mode::kSpawn:
      return "spawn";
  }
  return "?";
}

bool isSpawn(Mode mode) {
  return mode == Mode::kSpawn || mode == Mode::kBareSpawn;
}
bool isBare(Mode mode) {
  return mode == Mode::kBareFork || mode == Mode::kBareSpawn;
}
bool isReuse(Mode mode) {
  return mode == Mode::kReuse || mode == Mode::kReuseTcp;
}
bool isTcp(Mode mode) {
  return mode == Mode::kForkTcp || mode == Mode::kReuseTcp;
}

struct Config {
  int runs = 30;
  int spawn_runs = 20;
  int reuse_pools = 3;
  std::vector<int> world_sizes{2, 4, 8};
  std::vector<int> bare_spawn_world_sizes{2};
  std::vector<Mode> modes{std::begin(kAllModes), std::end(kAllModes)};
  std::string pytorch;
  std::string pytorch_note;
  std::string markdown;
  std::string command;
  std::string raw;
  std::vector<std::string> notes;
};

std::vector<int> parseInts(const std::string& text) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(std::stoi(item));
  }
  return out;
}

Mode parseMode(const std::string& name) {
  for (Mode mode : kAllModes) {
    if (name == modeName(mode)) return mode;
  }
  throw std::invalid_argument("unknown mode '" + name + "'");
}

// Reads the --bench_* flags (before gtest sees argv; it ignores them).
Config parseConfig(int argc, char** argv) {
  Config config;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const std::size_t eq = arg.find('=');
    if (arg.rfind("--bench_", 0) != 0 || eq == std::string::npos) continue;
    const std::string key = arg.substr(8, eq - 8);
    const std::string value = arg.substr(eq + 1);
    if (key == "runs") {
      config.runs = std::stoi(value);
    } else if (key == "spawn_runs") {
      config.spawn_runs = std::stoi(value);
    } else if (key == "reuse_pools") {
      config.reuse_pools = std::max(1, std::stoi(value));
    } else if (key == "world_sizes") {
      config.world_sizes = parseInts(value);
    } else if (key == "bare_spawn_world_sizes") {
      config.bare_spawn_world_sizes = parseInts(value);
    } else if (key == "modes") {
      config.modes.clear();
      std::stringstream in(value);
      std::string item;
      while (std::getline(in, item, ',')) {
        if (!item.empty()) config.modes.push_back(parseMode(item));
      }
    } else if (key == "pytorch") {
      config.pytorch = value;
    } else if (key == "pytorch_note") {
      config.pytorch_note = value;
    } else if (key == "markdown") {
      config.markdown = value;
    } else if (key == "command") {
      config.command = value;
    } else if (key == "raw") {
      config.raw = value;
    } else if (key == "note") {
      config.notes.push_back(value);
    } else if (key != "bare_rank") {
      throw std::invalid_argument("unknown flag " + arg);
    }
  }
  return config;
}

struct Cell {
  Mode mode;
  int world_size;
};

struct SuiteInfo {
  int cell;
  bool first_of_pool;  // reuse: the test that starts the pool
};

std::vector<Cell> g_cells;
std::map<std::string, int> g_suite_cells;  // suite name -> cell

std::string testName(int index) {
  char name[16];
  std::snprintf(name, sizeof(name), "Run%03d", index);
  return name;
}

// Registers every cell's tests, in the order they run. A spawned rank
// registers the suite of its own test only (`only_suite`): it must find its
// test by name, and the other few hundred would only slow its start.
void registerCells(const Config& config, const std::string& only_suite) {
  for (Mode mode : config.modes) {
    const bool spawn = isSpawn(mode);
    const std::vector<int>& sizes = mode == Mode::kBareSpawn
                                        ? config.bare_spawn_world_sizes
                                        : config.world_sizes;
    const int runs = spawn ? config.spawn_runs : config.runs;
    for (int world_size : sizes) {
      const int cell = static_cast<int>(g_cells.size());
      g_cells.push_back({mode, world_size});
      const std::string base =
          std::string(modeName(mode)) + "_ws" + std::to_string(world_size);
      if (isBare(mode)) {
        if (!only_suite.empty()) continue;
        g_suite_cells[base] = cell;
        for (int i = 0; i < runs; ++i) {
          ::testing::RegisterTest(base.c_str(), testName(i).c_str(), nullptr,
                                  nullptr, __FILE__, __LINE__,
                                  [world_size, spawn]() -> ::testing::Test* {
                                    return new BareTest(world_size, spawn);
                                  });
        }
        continue;
      }
      // Reuse: several suites (pools released at each suite's end), each
      // with one extra test that pays for starting the pool.
      const int suites = isReuse(mode) ? config.reuse_pools : 1;
      const int per_suite = (runs + suites - 1) / suites;
      for (int s = 0; s < suites; ++s) {
        const std::string suite =
            isReuse(mode) ? base + "_pool" + std::to_string(s) : base;
        if (!only_suite.empty() && suite != only_suite) continue;
        g_suite_cells[suite] = cell;
        const int tests = isReuse(mode) ? per_suite + 1 : runs;
        for (int i = 0; i < tests; ++i) {
          ranktest::internal::registerDistributedTest(
              suite.c_str(), testName(i).c_str(), __FILE__, __LINE__,
              Barrier::testOptions(),
              {ranktest::worldSizes({world_size}),
               ranktest::startMethod(spawn ? ranktest::StartMethod::kSpawn
                                           : ranktest::StartMethod::kFork),
               ranktest::store(isTcp(mode) ? ranktest::StoreKind::kTcp
                                           : ranktest::StoreKind::kFile),
               ranktest::reuseProcesses(isReuse(mode))},
              &makeBarrier);
        }
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Samples.

struct Sample {
  int cell = 0;
  std::string test;
  bool pool_start = false;
  bool ok = false;
  std::int64_t t0_ns = 0;
  std::int64_t total_ns = 0;
  std::int64_t cpu_ns = 0;
  ForkTimes forks;
  std::vector<Slot> slots;  // one per rank
};

std::vector<Sample> g_samples;

// The timeline of one test, relative to its start (ns). Empty where a point
// was not reached (or not stamped).
struct Timeline {
  std::optional<std::int64_t> first_fork, last_fork, fork_sum;
  std::optional<std::int64_t> alive, pg_ready, body_end, done, group_gone;
};

Timeline timeline(const Sample& s) {
  Timeline t;
  if (s.forks.count > 0) {
    t.first_fork = s.forks.first_ns - s.t0_ns;
    t.last_fork = s.forks.last_ns - s.t0_ns;
    t.fork_sum = s.forks.sum_ns;
  }
  auto latest = [&](std::int64_t Slot::*field,
                    bool this_test_only) -> std::optional<std::int64_t> {
    std::int64_t latest_ns = 0;
    for (const Slot& slot : s.slots) {
      const std::int64_t v = slot.*field;
      if (v == 0 || (this_test_only && v < s.t0_ns)) return std::nullopt;
      latest_ns = std::max(latest_ns, v);
    }
    return latest_ns - s.t0_ns;
  };
  t.alive = latest(&Slot::alive_ns, true);  // a reused worker is older
  t.pg_ready = latest(&Slot::pg_ready_ns, false);
  t.body_end = latest(&Slot::body_end_ns, false);
  t.done = latest(&Slot::done_ns, false);
  t.group_gone = latest(&Slot::group_gone_ns, false);
  return t;
}

class Timer : public ::testing::EmptyTestEventListener {
 public:
  Timer() : parent_(::getpid()) {}

  void OnTestStart(const ::testing::TestInfo&) override {
    g_board.clear();
    g_forks = ForkTimes{};
    cpu0_ = threadCpuNs();
    t0_ = nowNs();
  }

  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (::getpid() != parent_ || !result.failed()) return;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::fprintf(stderr, "[bench] FAILED %s.%s: %s\n",
                 info ? info->test_suite_name() : "?",
                 info ? info->name() : "?", result.message());
  }

  void OnTestEnd(const ::testing::TestInfo& info) override {
    const std::int64_t t1 = nowNs();
    const std::int64_t cpu1 = threadCpuNs();
    const ForkTimes forks = g_forks;
    const Board board = g_board.read();
    auto it = g_suite_cells.find(info.test_suite_name());
    if (it == g_suite_cells.end()) return;
    Sample s;
    s.cell = it->second;
    s.test = std::string(info.test_suite_name()) + "." + info.name();
    s.pool_start = isReuse(g_cells[s.cell].mode) &&
                   std::string(info.name()).rfind("Run000", 0) == 0;
    s.ok = info.result()->Passed();
    s.t0_ns = t0_;
    s.total_ns = t1 - t0_;
    s.cpu_ns = cpu1 - cpu0_;
    s.forks = forks;
    const int ranks = std::min(g_cells[s.cell].world_size, kMaxRanks);
    s.slots.assign(board.begin(), board.begin() + ranks);
    g_samples.push_back(std::move(s));
  }

  void OnTestSuiteEnd(const ::testing::TestSuite& suite) override;

 private:
  pid_t parent_;
  std::int64_t t0_ = 0;
  std::int64_t cpu0_ = 0;
};

// ---------------------------------------------------------------------------
// Statistics and formatting.

struct Stats {
  int n = 0;
  double median = 0, min = 0, p25 = 0, p75 = 0, p90 = 0, max = 0;
};

// Linear interpolation between closest ranks.
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] +
         (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

Stats stats(std::vector<double> values) {
  Stats s;
  s.n = static_cast<int>(values.size());
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.min = values.front();
  s.max = values.back();
  s.median = quantile(values, 0.5);
  s.p25 = quantile(values, 0.25);
  s.p75 = quantile(values, 0.75);
  s.p90 = quantile(values, 0.9);
  return s;
}

std::optional<double> median(std::vector<double> values) {
  if (values.empty()) return std::nullopt;
  return stats(std::move(values)).median;
}

// Milliseconds with a precision that suits the size.
std::string ms(double value) {
  char text[32];
  const double a = std::fabs(value);
  const char* format = "%.2f";
  if (a >= 100) {
    format = "%.0f";
  } else if (a >= 10) {
    format = "%.1f";
  }
  std::snprintf(text, sizeof(text), format, value);
  return text;
}
std::string ms(const std::optional<double>& value) {
  return value ? ms(*value) : std::string("–");
}

double toMs(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

std::vector<double> cellTotals(int cell, bool pool_start) {
  std::vector<double> out;
  for (const Sample& s : g_samples) {
    if (s.cell == cell && s.ok && s.pool_start == pool_start) {
      out.push_back(toMs(s.total_ns));
    }
  }
  return out;
}

std::optional<int> findCell(Mode mode, int world_size) {
  for (std::size_t i = 0; i < g_cells.size(); ++i) {
    if (g_cells[i].mode == mode && g_cells[i].world_size == world_size) {
      return static_cast<int>(i);
    }
  }
  return std::nullopt;
}

std::optional<double> cellMedian(Mode mode, int world_size) {
  auto cell = findCell(mode, world_size);
  if (!cell) return std::nullopt;
  return median(cellTotals(*cell, false));
}

void Timer::OnTestSuiteEnd(const ::testing::TestSuite& suite) {
  auto it = g_suite_cells.find(suite.name());
  if (it == g_suite_cells.end()) return;
  const Cell& cell = g_cells[it->second];
  const Stats s = stats(cellTotals(it->second, false));
  std::printf(
      "[bench] %-16s %-10s %2d ranks: %3d samples so far, median %s ms "
      "(failed tests in suite: %d)\n",
      suite.name(), modeName(cell.mode), cell.world_size, s.n,
      ms(s.median).c_str(), suite.failed_test_count());
  std::fflush(stdout);
}

// PyTorch samples, from bench/pytorch_overhead.py.
struct PyTorchData {
  bool present = false;
  std::map<std::string, std::string> meta;
  std::vector<std::string> notes;
  std::map<std::pair<std::string, int>, std::vector<double>> samples;  // ms
  int failed = 0;
};

PyTorchData readPyTorch(const std::string& path) {
  PyTorchData data;
  if (path.empty()) return data;
  std::ifstream in(path);
  if (!in) return data;
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    std::string field;
    while (std::getline(fields, field, '\t')) f.push_back(field);
    if (f.size() >= 3 && f[0] == "meta") {
      if (f[1] == "note") {
        data.notes.push_back(f[2]);
      } else {
        data.meta[f[1]] = f[2];
      }
    } else if (f.size() >= 6 && f[0] == "sample") {
      if (f[5] != "ok") {
        ++data.failed;
        continue;
      }
      data.samples[{f[1], std::stoi(f[2])}].push_back(std::stod(f[4]) / 1000);
    }
  }
  data.present = !data.samples.empty();
  return data;
}

std::string readFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// CPU time used by the whole machine and by this process with its reaped
// children (the ranks), to tell how much other processes used meanwhile.
struct CpuClock {
  double machine_busy_s = 0;
  double own_s = 0;
  std::int64_t wall_ns = 0;
};

CpuClock cpuClock() {
  CpuClock c;
  c.wall_ns = nowNs();
  std::istringstream cpu(readFirstLine("/proc/stat"));
  std::string label;
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0,
            softirq = 0;
  cpu >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq;
  c.machine_busy_s = static_cast<double>(user + nice + system + irq + softirq) /
                     static_cast<double>(::sysconf(_SC_CLK_TCK));
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    ::getrusage(who, &usage);
    for (const timeval& t : {usage.ru_utime, usage.ru_stime}) {
      c.own_s +=
          static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    }
  }
  return c;
}

// "other processes used 1.2 s of CPU over 300 s (0.2% of 2 CPUs)".
std::string foreignCpu(const CpuClock& start, const CpuClock& end, long cpus) {
  const double wall = toMs(end.wall_ns - start.wall_ns) / 1000;
  const double foreign =
      std::max(0.0, (end.machine_busy_s - start.machine_busy_s) -
                        (end.own_s - start.own_s));
  const double share = 100 * foreign / (wall * std::max(1L, cpus));
  char text[200];
  std::snprintf(text, sizeof(text),
                "other processes used %.1f s of CPU over %.0f s (%.1f%% of "
                "%ld CPUs)%s",
                foreign, wall, share, cpus,
                share > 10 ? ": **disturbed, its timings are inflated**" : "");
  return text;
}

struct Machine {
  int nproc = 0;
  long online = 0;
  std::string cpu_model;
  std::string kernel;
  std::string loadavg;
};

Machine machine() {
  Machine m;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) m.nproc = CPU_COUNT(&set);
  m.online = ::sysconf(_SC_NPROCESSORS_ONLN);
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) m.cpu_model = line.substr(colon + 2);
      break;
    }
  }
  utsname u{};
  if (::uname(&u) == 0) m.kernel = std::string(u.sysname) + " " + u.release;
  // The 1, 5 and 15 minute load averages.
  std::istringstream load(readFirstLine("/proc/loadavg"));
  std::string one, five, fifteen;
  load >> one >> five >> fifteen;
  m.loadavg = one + " " + five + " " + fifteen;
  return m;
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char text[64];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

// A markdown table, also printed as aligned text.
class Table {
 public:
  explicit Table(std::vector<std::string> header) {
    rows_.push_back(std::move(header));
  }
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }

  std::string markdown() const {
    std::ostringstream out;
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      out << "|";
      for (const std::string& c : rows_[r]) out << " " << c << " |";
      out << "\n";
      if (r == 0) {
        out << "|";
        for (std::size_t c = 0; c < rows_[0].size(); ++c) {
          out << (c == 0 ? " --- |" : " ---: |");
        }
        out << "\n";
      }
    }
    return out.str();
  }

  std::string text() const {
    std::vector<std::size_t> width(rows_[0].size(), 0);
    for (const auto& row : rows_) {
      for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) {
        width[c] = std::max(width[c], displayWidth(row[c]));
      }
    }
    std::ostringstream out;
    for (const auto& row : rows_) {
      for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) {
        const std::string pad(width[c] - displayWidth(row[c]), ' ');
        out << (c == 0 ? row[c] + pad : pad + row[c]) << "  ";
      }
      out << "\n";
    }
    return out.str();
  }

 private:
  // UTF-8 aware enough for the dashes and arrows used here.
  static std::size_t displayWidth(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
  }
  std::vector<std::vector<std::string>> rows_;
};

std::string fmtRatio(const std::optional<double>& a,
                     const std::optional<double>& b) {
  if (!a || !b || *b <= 0) return "–";
  char text[32];
  std::snprintf(text, sizeof(text), "%.2f", *a / *b);
  return text;
}

Table statsTable() {
  Table t({"mode", "ranks", "runs", "median ms", "min", "p25", "p75", "p90",
           "max", "parent CPU ms"});
  auto addRow = [&](const std::string& label, int cell, bool pool_start) {
    std::vector<double> cpu;
    for (const Sample& s : g_samples) {
      if (s.cell == cell && s.ok && s.pool_start == pool_start) {
        cpu.push_back(toMs(s.cpu_ns));
      }
    }
    const Stats s = stats(cellTotals(cell, pool_start));
    if (s.n == 0) return;
    t.add({label, std::to_string(g_cells[cell].world_size), std::to_string(s.n),
           "**" + ms(s.median) + "**", ms(s.min), ms(s.p25), ms(s.p75),
           ms(s.p90), ms(s.max), ms(median(cpu))});
  };
  for (std::size_t c = 0; c < g_cells.size(); ++c) {
    const int cell = static_cast<int>(c);
    addRow(modeLabel(g_cells[c].mode), cell, false);
    if (isReuse(g_cells[c].mode)) {
      addRow(g_cells[c].mode == Mode::kReuse ? "reuse: pool start"
                                             : "reuse, TCPStore: pool start",
             cell, true);
    }
  }
  return t;
}

Table pytorchTable(const PyTorchData& py) {
  Table t({"mode", "ranks", "runs", "median ms", "min", "p25", "p75", "p90",
           "max"});
  for (const std::string mode : {"fork", "spawn"}) {
    for (const auto& [key, values] : py.samples) {
      if (key.first != mode) continue;
      const Stats s = stats(values);
      t.add({"PyTorch " + mode, std::to_string(key.second), std::to_string(s.n),
             "**" + ms(s.median) + "**", ms(s.min), ms(s.p25), ms(s.p75),
             ms(s.p90), ms(s.max)});
    }
  }
  return t;
}

std::optional<double> pyMedian(const PyTorchData& py, const std::string& mode,
                               int world_size) {
  auto it = py.samples.find({mode, world_size});
  if (it == py.samples.end()) return std::nullopt;
  return median(it->second);
}

std::vector<int> allWorldSizes() {
  std::set<int> sizes;
  for (const Cell& c : g_cells) sizes.insert(c.world_size);
  return {sizes.begin(), sizes.end()};
}

Table comparisonTable(const PyTorchData& py) {
  Table t({"ranks", "fork: ranktest", "fork: PyTorch", "ratio",
           "spawn: ranktest", "spawn: PyTorch", "ratio", "reuse: ranktest",
           "reuse / PyTorch fork"});
  for (int ws : allWorldSizes()) {
    const auto fork = cellMedian(Mode::kFork, ws);
    const auto spawn = cellMedian(Mode::kSpawn, ws);
    const auto reuse = cellMedian(Mode::kReuse, ws);
    const auto pfork = pyMedian(py, "fork", ws);
    const auto pspawn = pyMedian(py, "spawn", ws);
    if (!fork && !spawn && !reuse) continue;
    t.add({std::to_string(ws), ms(fork), ms(pfork), fmtRatio(fork, pfork),
           ms(spawn), ms(pspawn), fmtRatio(spawn, pspawn), ms(reuse),
           fmtRatio(reuse, pfork)});
  }
  return t;
}

// Median of one timeline segment over a cell's good samples.
std::optional<double> segment(int cell,
                              const std::function<std::optional<std::int64_t>(
                                  const Sample&, const Timeline&)>& f) {
  std::vector<double> values;
  for (const Sample& s : g_samples) {
    if (s.cell != cell || !s.ok || s.pool_start) continue;
    if (auto v = f(s, timeline(s))) values.push_back(toMs(*v));
  }
  return median(values);
}

using Opt = std::optional<std::int64_t>;
Opt diff(const Opt& later, const Opt& earlier) {
  if (!later || !earlier) return std::nullopt;
  return *later - *earlier;
}

struct HarnessWork {
  // Median wall time of a test outside "last fork() returned -> all ranks
  // alive" (exec + loading for spawn: the same binary either way, and on
  // this machine its time comes in two modes ~150 ms apart), ranktest minus
  // the bare baseline, at 2 ranks.
  std::optional<double> wall;
  // Median CPU of the parent's test thread outside fork(), at 2 ranks.
  std::optional<double> parent_cpu;
};

Opt outsideLoading(const Sample& s, const Timeline& l) {
  auto loading = diff(l.alive, l.last_fork);
  if (!loading) return std::nullopt;
  return s.total_ns - *loading;
}

HarnessWork harnessWork(Mode mode, Mode bare) {
  HarnessWork w;
  auto cell = findCell(mode, 2);
  auto bare_cell = findCell(bare, 2);
  if (cell && bare_cell) {
    auto ranktest = segment(*cell, outsideLoading);
    auto baseline = segment(*bare_cell, outsideLoading);
    if (ranktest && baseline) w.wall = *ranktest - *baseline;
  }
  if (cell) {
    w.parent_cpu = segment(*cell, [](const Sample& s, const Timeline&) -> Opt {
      return s.cpu_ns - s.forks.cpu_ns;
    });
  }
  return w;
}

Table breakdownTable() {
  std::vector<std::string> header{"2 ranks, median ms per segment"};
  std::vector<int> cells;
  for (Mode mode : kAllModes) {
    if (auto cell = findCell(mode, 2)) {
      header.push_back(modeName(mode));
      cells.push_back(*cell);
    }
  }
  Table t(header);
  using F = std::function<Opt(const Sample&, const Timeline&)>;
  auto row = [&](const std::string& label, const F& f) {
    std::vector<std::string> r{label};
    for (int cell : cells) r.push_back(ms(segment(cell, f)));
    t.add(r);
  };
  row("test start → first fork() (parent: checks, store file, pipes)",
      [](const Sample&, const Timeline& l) { return l.first_fork; });
  row("fork() calls, summed (parent)",
      [](const Sample&, const Timeline& l) { return l.fork_sum; });
  row("between the fork() calls (parent: pipes, per-rank setup)",
      [](const Sample&, const Timeline& l) -> Opt {
        auto span = diff(l.last_fork, l.first_fork);
        if (!span || !l.fork_sum) return std::nullopt;
        return *span - *l.fork_sum;
      });
  row("last fork() returned → all ranks alive (spawn: exec + loading)",
      [](const Sample&, const Timeline& l) {
        return diff(l.alive, l.last_fork);
      });
  row("all ranks alive → all groups ready (rendezvous + Gloo group)",
      [](const Sample&, const Timeline& l) {
        return diff(l.pg_ready, l.alive);
      });
  row("test start → all groups ready (reuse: dispatch + rendezvous + Gloo)",
      [](const Sample&, const Timeline& l) { return l.pg_ready; });
  row("→ last body end (SetUp + barrier)",
      [](const Sample&, const Timeline& l) {
        return diff(l.body_end, l.pg_ready);
      });
  row("→ last TearDown done", [](const Sample&, const Timeline& l) {
    return diff(l.done, l.body_end);
  });
  row("→ test end in parent (group teardown, exit, reaping, verdict)",
      [](const Sample& s, const Timeline& l) {
        return diff(Opt(s.total_ns), l.done);
      });
  row("  of which Gloo group destruction (bare ranks only)",
      [](const Sample&, const Timeline& l) {
        return diff(l.group_gone, l.done);
      });
  row("total (median of whole tests)",
      [](const Sample& s, const Timeline&) -> Opt { return s.total_ns; });
  row("parent thread CPU (user + sys)",
      [](const Sample& s, const Timeline&) -> Opt { return s.cpu_ns; });
  row("parent thread CPU outside fork()",
      [](const Sample& s, const Timeline&) -> Opt {
        return s.cpu_ns - s.forks.cpu_ns;
      });
  return t;
}

struct Target {
  std::string what;
  std::string measured;
  std::string verdict;
};

std::string metOrNot(bool met) { return met ? "met" : "**not met**"; }

std::vector<Target> targets(const PyTorchData& py) {
  std::vector<Target> out;
  if (auto fork2 = cellMedian(Mode::kFork, 2)) {
    out.push_back({"fork, 2 ranks: median under 60 ms", ms(*fork2) + " ms",
                   metOrNot(*fork2 < 60)});
  }
  {
    std::string measured, verdict;
    bool all = true, any = false;
    for (int ws : allWorldSizes()) {
      auto reuse = cellMedian(Mode::kReuse, ws);
      if (!reuse) continue;
      any = true;
      measured += (measured.empty() ? "" : ", ") + std::to_string(ws) +
                  " ranks: " + ms(*reuse) + " ms";
      if (*reuse >= 10) {
        all = false;
        verdict += (verdict.empty() ? "" : ", ") + std::to_string(ws);
      }
    }
    if (any) {
      out.push_back({"reuse: median per test under 10 ms", measured,
                     all ? "met" : "**not met** at " + verdict + " ranks"});
    }
  }
  {
    std::string measured, failing;
    bool any = false;
    for (int ws : allWorldSizes()) {
      auto ours = cellMedian(Mode::kSpawn, ws);
      auto theirs = pyMedian(py, "spawn", ws);
      if (!ours || !theirs) continue;
      any = true;
      measured += (measured.empty() ? "" : ", ") + std::to_string(ws) +
                  " ranks: " + ms(*ours) + " vs " + ms(*theirs) + " ms";
      if (*ours > *theirs) {
        failing += (failing.empty() ? "" : ", ") + std::to_string(ws);
      }
    }
    if (any) {
      out.push_back(
          {"spawn no slower than PyTorch's spawn (medians)", measured,
           failing.empty() ? "met" : "**not met** at " + failing + " ranks"});
    } else if (findCell(Mode::kSpawn, 2)) {
      out.push_back({"spawn no slower than PyTorch's spawn (medians)",
                     "PyTorch not measured", "not measured"});
    }
  }
  {
    const HarnessWork w = harnessWork(Mode::kFork, Mode::kBareFork);
    if (w.wall || w.parent_cpu) {
      const bool met =
          (!w.wall || *w.wall <= 5) && (!w.parent_cpu || *w.parent_cpu <= 5);
      out.push_back({"harness's own work a few ms (≤ 5 ms), fork, 2 ranks",
                     "wall: " + ms(w.wall) +
                         " ms over bare fork; parent CPU outside "
                         "fork(): " +
                         ms(w.parent_cpu) + " ms",
                     metOrNot(met)});
    }
  }
  return out;
}

Table targetTable(const std::vector<Target>& list) {
  Table t({"target", "measured", "verdict"});
  for (const Target& target : list) {
    t.add({target.what, target.measured, target.verdict});
  }
  return t;
}

void writeRaw(const std::string& path) {
  std::ofstream out(path);
  out << "test\tmode\tranks\tpool_start\tok\ttotal_us\tparent_cpu_us\t"
         "forks\tfork_sum_us\tfirst_fork_us\tlast_fork_us\talive_us\t"
         "pg_ready_us\tbody_end_us\tdone_us\n";
  auto us = [](const Opt& v) {
    return v ? std::to_string(*v / 1000) : std::string("");
  };
  for (const Sample& s : g_samples) {
    const Timeline l = timeline(s);
    out << s.test << "\t" << modeName(g_cells[s.cell].mode) << "\t"
        << g_cells[s.cell].world_size << "\t" << s.pool_start << "\t" << s.ok
        << "\t" << s.total_ns / 1000 << "\t" << s.cpu_ns / 1000 << "\t"
        << s.forks.count << "\t" << us(l.fork_sum) << "\t" << us(l.first_fork)
        << "\t" << us(l.last_fork) << "\t" << us(l.alive) << "\t"
        << us(l.pg_ready) << "\t" << us(l.body_end) << "\t" << us(l.done)
        << "\n";
  }
}

std::string describeRuns(const Config& config) {
  std::ostringstream out;
  out << config.runs << " per fork, fork-TCPStore and bare fork cell; "
      << config.runs << " per reuse cell (in " << config.reuse_pools
      << " pools, whose first tests are reported apart as \"pool start\"); "
      << config.spawn_runs << " per spawn and bare spawn cell";
  return out.str();
}

int report(const Config& config, const Machine& before, const CpuClock& start,
           int failed_tests) {
  const PyTorchData py = readPyTorch(config.pytorch);
  const Machine after = machine();
  const std::string foreign = foreignCpu(start, cpuClock(), after.online);
  const Table ours = statsTable();
  const Table theirs = pytorchTable(py);
  const Table comparison = comparisonTable(py);
  const Table breakdown = breakdownTable();
  const std::vector<Target> target_list = targets(py);
  const Table target_table = targetTable(target_list);

  std::printf("\nranktest (ms per test, OnTestStart..OnTestEnd):\n%s",
              ours.text().c_str());
  if (py.present) {
    std::printf("\nPyTorch MultiProcessTestCase (ms per test):\n%s",
                theirs.text().c_str());
  } else {
    std::printf("\nPyTorch: not measured%s%s\n",
                config.pytorch_note.empty() ? "" : ": ",
                config.pytorch_note.c_str());
  }
  std::printf("\nComparison (medians, ms):\n%s", comparison.text().c_str());
  std::printf("\nBreakdown at 2 ranks (medians, ms):\n%s",
              breakdown.text().c_str());
  std::printf("\nTargets:\n%s", target_table.text().c_str());
  std::printf("\nDuring the ranktest part, %s\n", foreign.c_str());

  if (!config.raw.empty()) writeRaw(config.raw);
  if (config.markdown.empty()) return 0;

  std::ofstream md(config.markdown);
  if (!md) {
    std::fprintf(stderr, "[bench] cannot write %s\n", config.markdown.c_str());
    return 1;
  }
  md << "# Harness overhead: the fixed cost of one distributed test\n\n"
     << "Generated by `bench/run_harness_overhead` (do not edit by hand).\n\n"
     << "Each test starts its ranks, meets on a `c10d::FileStore`, builds a "
        "Gloo process group (loopback), runs one barrier and reports. "
        "ranktest tests are timed by a googletest listener from "
        "`OnTestStart` to `OnTestEnd` (`std::chrono::steady_clock`); the "
        "PyTorch tests (the same body in `MultiProcessTestCase`, "
        "`bench/pytorch_overhead.py`) around `TestCase.run` "
        "(`time.monotonic_ns`), i.e. setUp, test and tearDown alike.\n\n"
     << "## Run\n\n"
     << "- date: " << utcNow() << "\n"
     << "- command: `"
     << (config.command.empty() ? "bench_harness_overhead" : config.command)
     << "`\n"
     << "- machine: nproc " << before.nproc << " (online CPUs " << before.online
     << "), CPU `" << before.cpu_model << "`, " << before.kernel << "\n"
     << "- load average (1, 5, 15 min) when the ranktest part started / "
        "ended: "
     << before.loadavg << " / " << after.loadavg << "\n"
     << "- during the ranktest part, " << foreign << "\n"
     << "- libtorch (C++): " << TORCH_VERSION << "\n";
  for (const auto& [key, value] : py.meta) {
    md << "- " << key << ": " << value << "\n";
  }
  for (const std::string& note : config.notes) md << "- " << note << "\n";
  md << "- samples: " << describeRuns(config) << "; PyTorch: as in its table\n";
  if (failed_tests > 0) {
    md << "- **" << failed_tests
       << " ranktest test(s) failed**; their samples are left out\n";
  }
  if (py.failed > 0) {
    md << "- **" << py.failed
       << " PyTorch test(s) failed**; their samples are left out\n";
  }
  md << "\n## ranktest\n\n"
     << "Milliseconds per test. \"bare\" rows do the same work with no "
        "harness (fork or exec of this binary, FileStore, Gloo group, "
        "barrier, group teardown, `_exit`, `waitpid`). \"parent CPU\" is the "
        "test runner thread's CPU time (fork() included).\n\n"
     << ours.markdown() << "\n";
  md << "## PyTorch `MultiProcessTestCase` (python3-torch)\n\n";
  if (py.present) {
    md << theirs.markdown() << "\n";
  } else {
    md << "Not measured"
       << (config.pytorch_note.empty() ? "." : ": " + config.pytorch_note)
       << "\n\n";
  }
  md << "## Comparison (medians, ms; ratio = ranktest / PyTorch)\n\n"
     << comparison.markdown() << "\n"
     << "## Targets\n\n"
     << target_table.markdown() << "\n"
     << "## Where the time goes, 2 ranks\n\n"
     << "Medians of each segment over the cell's samples (so they need not "
        "add up exactly to the total). Points: parent test start and end "
        "(listener), parent fork() entry and return (pthread_atfork), rank "
        "alive (fork: atfork child handler; spawn: the binary's static "
        "initialisers, after libtorch is loaded), group ready (fixture "
        "constructor, run after the harness built the group), body end "
        "(after the barrier), TearDown done; for each rank point the latest "
        "rank counts. All on CLOCK_MONOTONIC.\n\n"
     << breakdown.markdown() << "\n";
  const HarnessWork fork_work = harnessWork(Mode::kFork, Mode::kBareFork);
  const HarnessWork spawn_work = harnessWork(Mode::kSpawn, Mode::kBareSpawn);
  md << "The harness's own work at 2 ranks. Wall time, ranktest minus the "
        "bare baseline, of the median test outside \"last fork() returned → "
        "all ranks alive\" (exec and loading of the same binary in both; "
        "either side spreads over several ms, and the FileStore's 10 ms "
        "polling makes rendezvous times jump in steps): fork "
     << ms(fork_work.wall) << " ms, spawn " << ms(spawn_work.wall)
     << " ms. CPU of the parent's test thread outside fork(): fork "
     << ms(fork_work.parent_cpu) << " ms, spawn " << ms(spawn_work.parent_cpu)
     << " ms.\n\n";
  md << "## Notes\n\n"
     << "- Fixed costs outside the harness, from the code of the libraries "
        "used: `c10d::FileStore::wait` polls every 10 ms; Gloo's TCP "
        "transport runs an epoll loop with a 10 ms timeout, and destroying a "
        "group waits for one loop tick per pair and for the device's loop "
        "thread (the bare rows' \"Gloo group destruction\"); PyTorch's "
        "`MultiProcessTestCase` polls its ranks every 100 ms "
        "(`time.sleep(0.1)` in `_join_processes`). The TCPStore "
        "rows are not targets: they show how much of a test the FileStore's "
        "polling takes.\n";
  for (const std::string& note : py.notes) md << "- " << note << "\n";
  if (!config.pytorch_note.empty() && !py.present) {
    md << "- PyTorch: " << config.pytorch_note << "\n";
  }
  md << "- Raw ranktest samples (one line per test, with the timeline "
        "points): `bench_harness_overhead --bench_raw=FILE`.\n";
  std::printf("\n[bench] wrote %s\n", config.markdown.c_str());
  return 0;
}

// Distributed-test settings from the environment would change what is
// measured (WORLD_SIZE even the test names): the benchmark fixes them.
void fixEnvironment() {
  for (const char* name :
       {"WORLD_SIZE", "BACKEND", "RANKTEST_START_METHOD", "RANKTEST_STORE",
        "RANKTEST_REUSE", "RANKTEST_VERBOSE", "RANKTEST_DEBUG_RANK"}) {
    if (const char* value = std::getenv(name)) {
      std::fprintf(stderr, "[bench] ignoring %s=%s\n", name, value);
      ::unsetenv(name);
    }
  }
}

bool startsWith(const char* text, const char* prefix) {
  return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  g_argv0 = argv[0];
  bool is_rank = false;
  std::string rank_suite;  // a spawned rank's, from the filter the harness set
  for (int i = 1; i < argc; ++i) {
    if (startsWith(argv[i], kBareRankFlag)) {
      g_alive_ns = g_image_ns;
      const std::vector<int> v =
          parseInts(argv[i] + std::strlen(kBareRankFlag));
      if (v.size() != 3) return 2;
      runBareRank(v[0], v[1], v[2]);
    }
    if (startsWith(argv[i], "--ranktest_internal_rank=")) is_rank = true;
    if (startsWith(argv[i], "--gtest_filter=")) {
      const std::string filter = argv[i] + std::strlen("--gtest_filter=");
      rank_suite = filter.substr(0, filter.find('.'));
    }
  }
  Config config;
  try {
    config = parseConfig(argc, argv);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "[bench] %s\n", error.what());
    return 2;
  }
  Machine before;
  CpuClock start;
  if (is_rank) {
    g_alive_ns = g_image_ns;
  } else {
    fixEnvironment();
    g_board.create();
    ::pthread_atfork(&forkPrepare, &forkParent, &forkChild);
    before = machine();
    start = cpuClock();
  }
  registerCells(config, is_rank ? rank_suite : std::string());
  ranktest::init(&argc, argv);  // a spawned rank runs its test and exits here

  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_result_printer());
  listeners.Append(new Timer);
  const int rc = ranktest::runAllTests();
  const int failed = ::testing::UnitTest::GetInstance()->failed_test_count();
  g_board.remove();
  const int report_rc = report(config, before, start, failed);
  return rc != 0 ? rc : report_rc;
}
