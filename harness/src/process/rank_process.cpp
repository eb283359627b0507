#include "process/rank_process.h"

#include <ATen/Parallel.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "plan/open_files_limit.h"
#include "process/child_setup.h"
#include "process/process_facts.h"
#include "process/program.h"
#include "rank/rank_runner.h"
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

// What a spawned rank is exec'ed with: this binary's own arguments (less
// the ones only the parent takes), its test and its RankLaunch; the
// environment less the parent's own variables, with the spawned marker; the
// directory the binary started in.
ProgramCall spawnCall(const RankLaunch& launch) {
  ProgramCall call;
  call.executable = "/proc/self/exe";
  call.arguments.push_back(g_arguments[0]);
  for (std::size_t i = 1; i < g_arguments.size(); ++i) {
    if (!dropForRank(g_arguments[i])) call.arguments.push_back(g_arguments[i]);
  }
  const std::string name = launch.test.empty() ? "-" : launch.test;
  call.arguments.push_back("--gtest_filter=" + name);
  call.arguments.push_back(kRankFlag + encodeRankLaunch(launch));
  call.environment.emplace();
  for (char** entry = environ; *entry != nullptr; ++entry) {
    if (!dropFromEnvironment(*entry)) call.environment->emplace_back(*entry);
  }
  call.environment->push_back(std::string(kSpawnedEnv) + "=1");
  call.directory = g_start_directory;
  call.kept_descriptors = {kResultFd, kControlFd, kStoreFileFd};
  return call;
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

  const pid_t parent = ::getpid();
  const RankDescriptors fds{output.write, result.write, control.read,
                            store_file_fd};
  pid_t pid = -1;
  if (spawn) {
    ProgramCall call = spawnCall(launch);
    call.child_setup = [parent, &fds](int exec_error_fd) {
      prepareRankChild(parent, fds, exec_error_fd);
    };
    pid = startProgram(call);
  } else {
    pid = ::fork();
    RANKTEST_CHECK_ERRNO(pid >= 0, "ranktest: fork failed");
  }
  if (pid == 0) {
    prepareRankChild(parent, fds, -1);
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
