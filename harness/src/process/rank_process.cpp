#include "process/rank_process.h"

#include <ATen/Parallel.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "plan/open_files_limit.h"
#include "process/process_facts.h"
#include "rank/rank_runner.h"
#include "rank/rank_signals.h"
#include "wire/check.h"
#include "wire/retry_on_eintr.h"

extern char** environ;

namespace ranktest::internal {
namespace {

std::vector<std::string> g_arguments;
std::string g_start_directory;

struct Pipe {
  int read = -1;
  int write = -1;
};

Pipe makePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    RANKTEST_FAIL(std::string("ranktest: pipe2 failed: ") +
                  std::strerror(errno));
  }
  return {fds[0], fds[1]};
}

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Gtest flags a rank must not inherit: it runs one test, once, unsharded, and
// never writes XML.
bool dropForRank(const std::string& argument) {
  for (const char* prefix :
       {"--gtest_filter", "--gtest_output", "--gtest_repeat", "--gtest_shuffle",
        "--gtest_random_seed", "--gtest_list_tests", "--gtest_fail_fast",
        kRankFlag}) {
    if (argument.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

bool dropFromEnvironment(const char* entry) {
  for (const char* name :
       {"GTEST_OUTPUT=", "GTEST_SHARD_INDEX=", "GTEST_TOTAL_SHARDS=",
        "GTEST_SHARD_STATUS_FILE=", "GTEST_FILTER=", "XML_OUTPUT_FILE="}) {
    if (std::strncmp(entry, name, std::strlen(name)) == 0) return true;
  }
  return false;
}

// A fixed-size message built without allocating: the child of fork() in a
// possibly multithreaded parent may only make async-signal-safe calls.
class ChildMessage {
 public:
  ChildMessage& operator<<(const char* text) {
    while (*text != '\0' && size_ < sizeof(text_)) text_[size_++] = *text++;
    return *this;
  }
  ChildMessage& operator<<(unsigned long long value) {
    char digits[24];
    int n = 0;
    do {
      digits[n++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value > 0);
    while (n > 0 && size_ < sizeof(text_)) text_[size_++] = digits[--n];
    return *this;
  }
  void writeTo(int fd) const {
    ssize_t ignored = ::write(fd, text_, size_);
    (void)ignored;
  }

 private:
  char text_[512];
  std::size_t size_ = 0;
};

// Says on `report_fd` (the rank's output) which descriptor step failed and
// why, and exits with kRankSetupExitCode, which the parent's report explains.
[[noreturn]] void failDescriptorSetup(int report_fd, const char* step) {
  const int error = errno;
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  const char* error_name = ::strerrorname_np(error);
  ChildMessage message;
  message << "[ranktest] the rank cannot set up its file descriptors: " << step
          << " failed with " << (error_name ? error_name : "an error")
          << "; RLIMIT_NOFILE is "
          << static_cast<unsigned long long>(limit.rlim_cur)
          << "; raise it (e.g. ulimit -n " << kSuggestedOpenFilesLimit
          << ") before running the tests\n";
  message.writeTo(report_fd);
  ::_exit(kRankSetupExitCode);
}

// In the child, before anything else: own process group, death with the
// parent, and the inherited descriptors at their fixed numbers (all others
// closed, so that no listening socket or pipe end of the parent leaks in).
// Every descriptor step is checked: a rank whose stdout or result pipe is not
// in place would report into the wrong file and leave its parent waiting.
// Only async-signal-safe calls: the parent may have threads.
void prepareChild(pid_t parent, int output, int result, int control,
                  int store_file) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // SIGPIPE stays ignored (inherited from the parent), as in a Python-hosted
  // PyTorch rank: a write to a peer that left then fails in the collective
  // with "Broken pipe", reported and hinted at, instead of killing the rank.
  // A stack request (at the deadline) may come before the rank installs its
  // handler, e.g. while a spawned rank still loads: ignored, it cannot kill
  // the rank, whose report then says "still running" as it should. An
  // ignored disposition survives exec; the handler replaces it.
  ::signal(stackRequestSignal(), SIG_IGN);
  // The parent's interrupt handlers are not the rank's (interrupt.h).
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  if (::getppid() != parent) ::_exit(kTestErrorExitCode);
  // Move the sources above the targets first, so dup2 never clobbers one.
  int sources[4] = {output, result, control, store_file};
  for (int& fd : sources) {
    if (fd < 0) continue;
    fd = ::fcntl(fd, F_DUPFD, kStoreFileFd + 1);
    if (fd < 0) failDescriptorSetup(output, "fcntl(F_DUPFD)");
  }
  if (::dup2(sources[0], STDOUT_FILENO) < 0) {
    failDescriptorSetup(output, "dup2 to stdout");
  }
  if (::dup2(sources[0], STDERR_FILENO) < 0) {
    failDescriptorSetup(STDOUT_FILENO, "dup2 to stderr");
  }
  if (::dup2(sources[1], kResultFd) < 0) {
    failDescriptorSetup(STDOUT_FILENO, "dup2 to the result descriptor");
  }
  if (sources[2] >= 0 && ::dup2(sources[2], kControlFd) < 0) {
    failDescriptorSetup(STDOUT_FILENO, "dup2 to the control descriptor");
  }
  if (sources[3] >= 0 && ::dup2(sources[3], kStoreFileFd) < 0) {
    failDescriptorSetup(STDOUT_FILENO, "dup2 to the store file descriptor");
  }
  ::syscall(SYS_close_range, kStoreFileFd + 1, ~0U, 0);
  if (sources[2] < 0) ::close(kControlFd);
  if (sources[3] < 0) ::close(kStoreFileFd);
  // Without /dev/null the rank keeps the parent's stdin: harmless.
  int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0 && devnull != STDIN_FILENO) {
    ::dup2(devnull, STDIN_FILENO);
    ::close(devnull);
  }
}

// What a spawned rank is exec'ed with: this binary's own arguments (less
// the ones only the parent takes), its test and its RankLaunch; the
// environment less the parent's own variables, with the spawned marker.
// argv and envp point into `arguments` and environ: built in place.
struct SpawnCommand {
  std::vector<std::string> arguments;
  std::vector<char*> argv;
  std::vector<char*> envp;
};

void buildSpawnCommand(const RankLaunch& launch, SpawnCommand& command) {
  command.arguments.push_back(g_arguments[0]);
  for (std::size_t i = 1; i < g_arguments.size(); ++i) {
    if (!dropForRank(g_arguments[i])) {
      command.arguments.push_back(g_arguments[i]);
    }
  }
  const std::string name = launch.test.empty() ? "-" : launch.test;
  command.arguments.push_back("--gtest_filter=" + name);
  command.arguments.push_back(kRankFlag + encodeRankLaunch(launch));
  for (std::string& a : command.arguments) command.argv.push_back(a.data());
  command.argv.push_back(nullptr);
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (!dropFromEnvironment(*entry)) command.envp.push_back(*entry);
  }
  static std::string spawned_marker = [] {
    // Appended, not `+`: GCC 12 warns falsely (-Warray-bounds) on the sum.
    std::string marker(kSpawnedEnv);
    marker.append("=1");
    return marker;
  }();
  command.envp.push_back(spawned_marker.data());
  command.envp.push_back(nullptr);
}

// In the forked child: becomes the spawned rank, in the directory the
// binary started in. Async-signal-safe.
[[noreturn]] void execSpawnedRank(const SpawnCommand& command) {
  if (!g_start_directory.empty() && ::chdir(g_start_directory.c_str()) != 0) {
    ::_exit(kTestErrorExitCode);
  }
  ::execve("/proc/self/exe", command.argv.data(), command.envp.data());
  ::_exit(127);
}

}  // namespace

void setOriginalArguments(int argc, char** argv) {
  g_arguments.assign(argv, argv + argc);
  char cwd[4096];
  if (::getcwd(cwd, sizeof(cwd)) != nullptr) g_start_directory = cwd;
}

bool haveOriginalArguments() { return !g_arguments.empty(); }

std::unique_ptr<RankProcess> RankProcess::start(
    const RankLaunch& launch, StartMethod method, int store_file_fd,
    bool reusable, const std::function<void()>& forked_main) {
  const bool spawn = method == StartMethod::kSpawn;
  RANKTEST_CHECK_STATE(!spawn || !forked_main,
                       "ranktest: a body given in memory can only be forked");
  RANKTEST_CHECK_STATE(
      !spawn || haveOriginalArguments(),
      "ranktest: spawn start method needs ranktest::init(&argc, argv) in "
      "main (or link ranktest::main)");
  checkOpenFilesLimit(launch.world_size,
                      reusable && launch.store.rfind("tcp:", 0) == 0);
  Pipe output = makePipe();
  Pipe result = makePipe();
  Pipe control = reusable ? makePipe() : Pipe{};

  // Everything exec needs is built before fork: the child may only make
  // async-signal-safe calls.
  SpawnCommand command;
  if (spawn) buildSpawnCommand(launch, command);

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  RANKTEST_CHECK_ERRNO(pid >= 0, "ranktest: fork failed");
  if (pid == 0) {
    prepareChild(parent, output.write, result.write, control.read,
                 store_file_fd);
    if (spawn) execSpawnedRank(command);
    // OpenMP's threads are not forked: a child whose parent ran a parallel
    // region (a plain test before this one) waits forever for them in its
    // first one. With one thread ATen opens none; torchrun too gives each
    // rank one (OMP_NUM_THREADS=1).
    at::set_num_threads(1);
    if (forked_main) {
      forked_main();
      ::_exit(kTestErrorExitCode);
    }
    runRankProcess(launch);
  }

  // Also from the parent, so that kill(-pid) works even before the child ran.
  ::setpgid(pid, pid);
  closeFd(output.write);
  closeFd(result.write);
  closeFd(control.read);
  auto process = std::unique_ptr<RankProcess>(new RankProcess);
  process->rank_ = launch.rank;
  process->pid_ = pid;
  process->output_fd_ = output.read;
  process->result_fd_ = result.read;
  process->control_fd_ = control.write;
  process->pidfd_ = pidfdOpen(pid);
  for (int fd : {process->output_fd_, process->result_fd_}) {
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  return process;
}

RankProcess::~RankProcess() {
  kill();
  closeOutput();
  closeFd(control_fd_);
  closeFd(pidfd_);
}

bool RankProcess::pollExit() {
  if (exited_) return true;
  int status = 0;
  pid_t done = ::waitpid(pid_, &status, WNOHANG);
  if (done == pid_) {
    exited_ = true;
    wait_status_ = status;
  }
  return exited_;
}

void RankProcess::signal(int signal_number) const {
  if (!exited_) ::kill(pid_, signal_number);
}

bool RankProcess::waitUntilStopped(std::chrono::milliseconds limit) const {
  const auto end = std::chrono::steady_clock::now() + limit;
  for (;;) {
    siginfo_t info{};
    // WNOWAIT: the stop stays unreported for anyone else.
    if (!exited_ &&
        ::waitid(P_PID, static_cast<id_t>(pid_), &info,
                 WSTOPPED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid_) {
      return true;
    }
    if (exited_ || std::chrono::steady_clock::now() >= end) return false;
    ::usleep(1000);
  }
}

void RankProcess::kill() {
  if (pid_ <= 0) return;
  // The group also takes anything the rank started itself.
  ::kill(-pid_, SIGKILL);
  if (exited_) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  retryOnEintr([&] { return ::waitpid(pid_, &status, 0); });
  exited_ = true;
  wait_status_ = status;
}

void RankProcess::closeOutput() {
  closeFd(output_fd_);
  closeFd(result_fd_);
}

}  // namespace ranktest::internal
