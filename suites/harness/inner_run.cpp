#include "inner_run.h"

#include <dirent.h>
#include <fcntl.h>
#include <gmock/gmock.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <random>
#include <set>
#include <sstream>
#include <utility>

#include "process/program.h"
#include "sanitizer_slowdown.h"

extern char** environ;

namespace harness_suite {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

// The inner run sees none of the variables that pick a matrix cell or change
// the harness, except those the test sets.
bool inherited(const std::string& entry) {
  // A launcher's variables too: the suite itself may run under one, and
  // the inner run is no rank of that job.
  for (const char* prefix :
       {"WORLD_SIZE=", "BACKEND=", "RANKTEST_", "GTEST_", "TMPDIR=", "RANK=",
        "LOCAL_RANK=", "LOCAL_WORLD_SIZE=", "GROUP_RANK=", "GROUP_WORLD_SIZE=",
        "ROLE_", "MASTER_ADDR=", "MASTER_PORT=", "TORCHELASTIC_", "OMPI_",
        "PMI_", "PMIX_", "SLURM_"}) {
    if (entry.rfind(prefix, 0) == 0) return false;
  }
  return true;
}

// A name no earlier run used: the reaper must know it before it exists.
std::string freshRootPath(const std::string& token) {
  std::random_device random;
  return fs::temp_directory_path().string() + "/ranktest-selftest-" + token +
         "-" + std::to_string(random());
}

// Moves `from` to `to` in the child of fork() without clobbering the other
// sources (all are first moved above kFirstFree). Async-signal-safe.
constexpr int kFirstFree = 10;
void moveFdsInChild(std::initializer_list<std::pair<int, int>> moves) {
  std::pair<int, int> high[4];
  int n = 0;
  for (const auto& [from, to] : moves) {
    high[n++] = {::fcntl(from, F_DUPFD, kFirstFree), to};
  }
  for (int i = 0; i < n; ++i) {
    if (high[i].first < 0 || ::dup2(high[i].first, high[i].second) < 0) {
      ::_exit(127);
    }
  }
}

// Removes `root` once the caller is gone and the inner run has ended, also
// when the caller was SIGKILLed: it waits for end of file on `lifeline`
// (whose only writer is the caller, closed when runInner returns or when the
// process dies) and then on `inner_output` (open in the inner parent until
// it is dead). A shell in its own process group, deaf to SIGINT, SIGTERM and
// SIGHUP, so that what stops the caller cannot stop the clean-up; the child
// of fork() only moves descriptors and calls execve.
pid_t startReaper(int lifeline, int inner_output, const std::string& root) {
  static const char kScript[] =
      "cat >/dev/null; cat <&3 >/dev/null; exec rm -rf -- \"$1\"";
  ranktest::internal::ProgramCall call;
  call.executable = "/bin/sh";
  call.arguments = {"/bin/sh", "-c", kScript, "ranktest-selftest-reaper", root};
  call.kept_descriptors = {3};
  const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  call.child_setup = [lifeline, inner_output, devnull](int exec_error_fd) {
    ::setpgid(0, 0);
    for (int ignored : {SIGINT, SIGTERM, SIGHUP}) ::signal(ignored, SIG_IGN);
    moveFdsInChild({{lifeline, STDIN_FILENO},
                    {devnull, STDOUT_FILENO},
                    {devnull, STDERR_FILENO},
                    {inner_output, 3}});
    ranktest::internal::closeDescriptorsAbove(3, exec_error_fd);
  };
  const pid_t pid = ranktest::internal::startProgram(call);
  ::close(devnull);
  return pid;
}

// The inner parent dies with its caller (its ranks die with it in turn), and
// starts with default dispositions and an empty signal mask, as from a shell.
// Async-signal-safe.
void prepareInnerChild(pid_t caller, int output, const InnerOptions& options) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The caller may have died before prctl: then no signal would ever come.
  if (::getppid() != caller) ::_exit(127);
  for (int reset : {SIGINT, SIGTERM, SIGHUP}) ::signal(reset, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (options.open_files_limit > 0) {
    rlimit limit{};
    ::getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = options.open_files_limit;
    if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::_exit(127);
  }
  ::dup2(output, STDOUT_FILENO);
  ::dup2(output, STDERR_FILENO);
}

std::vector<std::string> filesIn(const std::string& tmp,
                                 const std::string& out) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(tmp, ec)) {
    files.push_back(entry.path().filename().string());
  }
  for (const auto& entry : fs::directory_iterator(out, ec)) {
    if (entry.path().filename() != "inner.xml") {
      files.push_back("xml dir: " + entry.path().filename().string());
    }
  }
  return files;
}

// The reaper has nothing left to do once the lifeline is closed and the
// inner run is over; reaped within a bound, killed past it.
void endReaper(pid_t reaper) {
  const auto end = Clock::now() + std::chrono::seconds(5);
  while (::waitpid(reaper, nullptr, WNOHANG) == 0) {
    if (Clock::now() >= end) {
      ::kill(reaper, SIGKILL);
      ::waitpid(reaper, nullptr, 0);
      return;
    }
    ::usleep(1000);
  }
}

}  // namespace

InnerResult runInner(const InnerOptions& options) {
  static std::atomic<int> counter{0};
  const std::string token =
      std::to_string(::getpid()) + "-" + std::to_string(counter++);

  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (inherited(*e)) env.emplace_back(*e);
  }
  const std::string root = freshRootPath(token);
  const std::string tmp = root + "/tmp";
  const std::string out = root + "/xml";
  env.push_back("RANKTEST_SELFTEST_TOKEN=" + token);
  env.push_back("TMPDIR=" + tmp);
  for (const auto& [name, value] : options.env) {
    env.push_back(name);
    env.back() += '=';
    env.back() += value;
  }
  std::vector<std::string> args = options.launcher;
  args.push_back(options.binary.empty() ? std::string(RANKTEST_INNER_BINARY)
                                        : options.binary);
  args.push_back("--gtest_filter=" + options.filter);
  args.push_back("--gtest_output=xml:" + out + "/inner.xml");
  args.insert(args.end(), options.args.begin(), options.args.end());
  ranktest::internal::ProgramCall call;
  call.executable = args[0];
  call.arguments = args;
  call.environment = env;

  int pipe_fds[2];
  int lifeline[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0 || ::pipe2(lifeline, O_CLOEXEC) != 0) {
    throw std::runtime_error("pipe2");
  }
  // The reaper knows the directories before they exist: whenever this
  // process dies from here on, nothing stays behind.
  const pid_t reaper = startReaper(lifeline[0], pipe_fds[0], root);
  ::close(lifeline[0]);
  for (const std::string& dir : {root, tmp, out}) {
    if (::mkdir(dir.c_str(), 0700) != 0) {
      for (int fd : {lifeline[1], pipe_fds[0], pipe_fds[1]}) ::close(fd);
      endReaper(reaper);
      throw std::runtime_error("mkdir " + dir + ": " + std::strerror(errno));
    }
  }
  const auto start = Clock::now();
  const pid_t caller = ::getpid();
  const int inner_output = pipe_fds[1];
  call.child_setup = [caller, inner_output, &options](int) {
    prepareInnerChild(caller, inner_output, options);
  };
  const pid_t pid = ranktest::internal::startProgram(call);
  ::close(pipe_fds[1]);

  InnerResult result;
  bool watching = static_cast<bool>(options.watcher);
  for (;;) {
    const auto left = options.limit - (Clock::now() - start);
    if (left <= Clock::duration::zero()) break;
    pollfd fd{pipe_fds[0], POLLIN, 0};
    const int wait_ms = static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(left).count() +
        1);
    if (::poll(&fd, 1, wait_ms) <= 0) continue;
    char chunk[8192];
    const ssize_t n = ::read(pipe_fds[0], chunk, sizeof(chunk));
    if (n <= 0) break;
    result.output.append(chunk, static_cast<std::size_t>(n));
    if (watching && options.watcher(pid, token, result.output))
      watching = false;
  }
  ::close(pipe_fds[0]);
  // End of output comes just before the exit; wait for it within the limit.
  int status = 0;
  pid_t reaped = 0;
  while ((reaped = ::waitpid(pid, &status, WNOHANG)) == 0 &&
         Clock::now() - start < options.limit) {
    ::usleep(1000);
  }
  if (reaped == 0) {
    // Past the outer limit: the inner run hung, which the caller sees as
    // exit_code -1 and this line in the output. SIGTERM first, so that a
    // launcher script tears down what it made (ci/cluster: namespaces).
    result.output += "\n[outer limit reached; inner run killed]\n";
    ::kill(-pid, SIGTERM);
    const auto term_end = Clock::now() + std::chrono::seconds(10);
    while (::waitpid(pid, &status, WNOHANG) == 0 && Clock::now() < term_end) {
      ::usleep(10000);
    }
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
  }
  result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      Clock::now() - start);
  result.exit_code =
      reaped != 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.files_left = filesIn(tmp, out);
  // Ranks die with their parent by PR_SET_PDEATHSIG, a killed parent's own
  // runs clean up after it, and a warm process ends once its ctest run (or
  // script) has: give the kernel, their reapers and warm processes a moment
  // before counting leftovers.
  const auto settle_end = Clock::now() + std::chrono::seconds(5);
  for (;;) {
    result.processes_left = processesWithToken(token);
    const bool settled = result.processes_left.empty() &&
                         (result.files_left.empty() || result.exit_code != -1);
    if (settled || Clock::now() >= settle_end) break;
    ::usleep(10000);
    result.files_left = filesIn(tmp, out);
  }
  // After the processes: ranks whose launcher was killed write it last.
  result.xml = readFile(out + "/inner.xml");
  for (pid_t leftover : result.processes_left) ::kill(leftover, SIGKILL);
  std::error_code ec;
  fs::remove_all(root, ec);
  ::close(lifeline[1]);
  endReaper(reaper);
  return result;
}

InnerResult runInnerLeavingNothing(const InnerOptions& options) {
  InnerResult result = runInner(options);
  EXPECT_THAT(result.processes_left, ::testing::IsEmpty()) << result.output;
  EXPECT_THAT(result.files_left, ::testing::IsEmpty()) << result.output;
  return result;
}

void spawnUnderSanitizer(InnerOptions& options) {
  if (kSanitizerSlowdown > 1) options.env["RANKTEST_START_METHOD"] = "spawn";
}

}  // namespace harness_suite
