#include "inner_run.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

extern char** environ;

namespace harness_suite {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

std::string makeTempDir(const char* tag) {
  std::string path = fs::temp_directory_path().string() + "/" + tag + ".XXXXXX";
  if (::mkdtemp(path.data()) == nullptr) throw std::runtime_error("mkdtemp");
  return path;
}

// The inner run sees none of the variables that pick a matrix cell or change
// the harness, except those the test sets.
bool inherited(const std::string& entry) {
  for (const char* prefix :
       {"WORLD_SIZE=", "BACKEND=", "RANKTEST_", "GTEST_", "TMPDIR="}) {
    if (entry.rfind(prefix, 0) == 0) return false;
  }
  return true;
}

}  // namespace

InnerResult runInner(const InnerOptions& options) {
  static std::atomic<int> counter{0};
  const std::string token =
      std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const std::string tmp = makeTempDir("ranktest-selftest-tmp");
  const std::string out = makeTempDir("ranktest-selftest-xml");

  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    if (inherited(*e)) env.emplace_back(*e);
  }
  env.push_back("RANKTEST_SELFTEST_TOKEN=" + token);
  env.push_back("TMPDIR=" + tmp);
  for (const auto& [name, value] : options.env)
    env.push_back(name + "=" + value);
  std::vector<std::string> args = {options.binary.empty()
                                       ? std::string(RANKTEST_INNER_BINARY)
                                       : options.binary,
                                   "--gtest_filter=" + options.filter,
                                   "--gtest_output=xml:" + out + "/inner.xml"};
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  const auto start = Clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(pipe_fds[1], STDOUT_FILENO);
    ::dup2(pipe_fds[1], STDERR_FILENO);
    ::execve(args[0].c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
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
    // exit_code -1 and this line in the output.
    result.output += "\n[outer limit reached; inner run killed]\n";
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  result.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      Clock::now() - start);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.xml = readFile(out + "/inner.xml");
  for (const auto& entry : fs::directory_iterator(tmp)) {
    result.files_left.push_back(entry.path().filename().string());
  }
  for (const auto& entry : fs::directory_iterator(out)) {
    if (entry.path().filename() != "inner.xml") {
      result.files_left.push_back("xml dir: " +
                                  entry.path().filename().string());
    }
  }
  // Ranks die with their parent by PR_SET_PDEATHSIG; give the kernel a
  // moment to deliver it before counting leftovers.
  const auto settle_end = Clock::now() + std::chrono::seconds(5);
  do {
    result.processes_left = processesWithToken(token);
    if (result.processes_left.empty()) break;
    ::usleep(10000);
  } while (Clock::now() < settle_end && result.exit_code == -1);
  for (pid_t leftover : result.processes_left) ::kill(leftover, SIGKILL);
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::remove_all(out, ec);
  return result;
}

}  // namespace harness_suite
