#include "process/program.h"

// std::filesystem, not Boost.Filesystem: Boost stays header-only here.
#define BOOST_PROCESS_USE_STD_FS 1

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

// Boost.Process 1.81 with std::filesystem names boost::optional without
// including it. (Its environment.hpp does not compile so: findExecutable
// reads PATH itself.)
#include <boost/asio/io_context.hpp>
#include <boost/optional.hpp>
#include <boost/process/v2/process.hpp>

#include "wire/check.h"
#include "wire/retry_on_eintr.h"

extern char** environ;

namespace ranktest::internal {
namespace {

namespace bp = boost::process::v2;
using Clock = std::chrono::steady_clock;

// The launcher's hooks (Boost.Process's initializer protocol): the kept
// descriptors join its whitelist before the fork; in the child, the
// caller's set-up runs before exec; a failed exec ends the child with
// _exit, not exit (no atexit handler of the parent's copy may run).
struct ChildHooks {
  const ProgramCall* call;

  template <typename Launcher, typename Path, typename Argv>
  bp::error_code on_setup(Launcher& launcher, const Path&, Argv&) {
    for (int fd : call->kept_descriptors) launcher.fd_whitelist.push_back(fd);
    return {};
  }
  template <typename Launcher, typename Path, typename Argv>
  bp::error_code on_exec_setup(Launcher& launcher, const Path&, Argv&) {
    if (!call->directory.empty() && ::chdir(call->directory.c_str()) != 0) {
      return {errno, bp::system_category()};
    }
    // The launcher's exec-error pipe is the last descriptor it whitelisted.
    if (call->child_setup) call->child_setup(launcher.fd_whitelist.back());
    return {};
  }
  // Boost.Process 1.81 detects this hook with five arguments and calls it
  // with four: a variadic template is found both ways.
  template <typename... Any>
  void on_exec_error(Any&&...) {
    ::_exit(127);
  }
};

void closeFd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Reads `fd` to its end into `output` until `end`; false if `end` came first.
bool readUntil(int fd, std::string& output, Clock::time_point end) {
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - Clock::now());
    if (left.count() <= 0) return false;
    pollfd ready{fd, POLLIN, 0};
    const int polled = ::poll(&ready, 1, static_cast<int>(left.count()) + 1);
    if (polled < 0 && errno != EINTR) return true;
    if (polled <= 0) continue;
    char chunk[8192];
    const ssize_t n =
        retryOnEintr([&] { return ::read(fd, chunk, sizeof(chunk)); });
    if (n <= 0) return true;
    output.append(chunk, static_cast<std::size_t>(n));
  }
}

// Reaps `pid` by `end`; past it, kills its group and reaps it.
int reapBy(pid_t pid, Clock::time_point end, bool& timed_out) {
  int status = 0;
  while (retryOnEintr([&] { return ::waitpid(pid, &status, WNOHANG); }) == 0) {
    if (Clock::now() >= end) {
      timed_out = true;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      retryOnEintr([&] { return ::waitpid(pid, &status, 0); });
      break;
    }
    ::usleep(1000);
  }
  return status;
}

}  // namespace

void closeDescriptorsAbove(int highest_kept, int exec_error_fd) {
  const auto closeRange = [](unsigned first, unsigned last) {
    if (first > last) return;
    if (::syscall(SYS_close_range, first, last, 0) == 0) return;
    // Before Linux 5.9: one by one, up to the descriptor limit.
    rlimit limit{};
    ::getrlimit(RLIMIT_NOFILE, &limit);
    for (unsigned fd = first; fd <= last && fd < limit.rlim_cur; ++fd) {
      ::close(static_cast<int>(fd));
    }
  };
  const unsigned first = static_cast<unsigned>(highest_kept) + 1;
  if (exec_error_fd > highest_kept) {
    closeRange(first, static_cast<unsigned>(exec_error_fd) - 1);
    closeRange(static_cast<unsigned>(exec_error_fd) + 1, ~0U);
  } else {
    closeRange(first, ~0U);
  }
}

std::string findExecutable(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string_view folders = path != nullptr ? path : "/usr/bin:/bin";
  for (;;) {
    const std::size_t colon = folders.find(':');
    std::string candidate(folders.substr(0, colon));
    if (candidate.empty()) candidate = ".";
    candidate += '/';
    candidate += name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) return "";
    folders.remove_prefix(colon + 1);
  }
}

pid_t startProgram(const ProgramCall& call) {
  RANKTEST_CHECK_ARG(!call.arguments.empty(),
                     "ranktest: a program needs its argv[0] (", call.executable,
                     ")");
  std::vector<const char*> argv;
  argv.reserve(call.arguments.size() + 1);
  for (const std::string& argument : call.arguments) {
    argv.push_back(argument.c_str());
  }
  argv.push_back(nullptr);
  std::vector<const char*> envp;
  if (call.environment) {
    for (const std::string& entry : *call.environment) {
      envp.push_back(entry.c_str());
    }
    envp.push_back(nullptr);
  }
  boost::asio::io_context context;
  bp::posix::default_launcher launcher;
  launcher.env = call.environment ? envp.data() : ::environ;
  bp::error_code error;
  auto process =
      launcher(context, error, call.executable, argv.data(), ChildHooks{&call});
  RANKTEST_CHECK(!error, "ranktest: cannot start ", call.executable, ": ",
                 error.message());
  const pid_t pid = process.id();
  // The caller owns the child: no Boost handle may terminate or reap it.
  process.detach();
  return pid;
}

ProgramRun runProgram(const ProgramCall& call,
                      std::chrono::milliseconds limit) {
  int fds[2];
  RANKTEST_CHECK_ERRNO(::pipe2(fds, O_CLOEXEC) == 0,
                       "ranktest: pipe2 for the output of ", call.executable);
  int read_end = fds[0];
  int write_end = fds[1];
  ProgramCall captured = call;
  captured.child_setup = [&call, write_end](int exec_error_fd) {
    // Its own group, so that the limit ends anything it started too.
    ::setpgid(0, 0);
    ::dup2(write_end, STDOUT_FILENO);
    if (call.child_setup) call.child_setup(exec_error_fd);
  };
  const auto end = Clock::now() + limit;
  pid_t pid = -1;
  try {
    pid = startProgram(captured);
  } catch (...) {
    closeFd(read_end);
    closeFd(write_end);
    throw;
  }
  closeFd(write_end);
  ProgramRun run;
  run.timed_out = !readUntil(read_end, run.output, end);
  closeFd(read_end);
  const int status = reapBy(pid, end, run.timed_out);
  if (WIFEXITED(status)) {
    run.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    run.signal = WTERMSIG(status);
  }
  return run;
}

}  // namespace ranktest::internal
