// ranktest_warm_client: the command ctest runs for each test of a suite
// (ranktest_add_suite registers `ranktest_warm_client <binary> <args...>`).
// It has the binary's warm process (started on first use) fork a fresh
// child for the test, on this process's standard streams and working
// directory, forwards SIGINT, SIGTERM, SIGHUP and SIGQUIT to that child,
// and ends as the child ended: its exit code, or its signal. It links no
// libtorch, so it starts in a millisecond where the binary takes most of a
// second. RANKTEST_WARM=0 runs the binary directly instead.
//
// ranktest_warm_client --list-tests <cache> <binary>: the binary's test
// listing, cached (test_list_cache.h).

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "test_list_cache.h"
#include "warm/build_identity.h"
#include "warm/warm_protocol.h"
#include "warm_start.h"
#include "wire/number_text.h"

namespace {

using ranktest::internal::connectToAbstract;
using ranktest::internal::numberAfter;
using ranktest::internal::receivePacket;
using ranktest::internal::sendPacket;

// A warm process exits after this long without a test to run (and at once
// when its ctest run ends).
constexpr double kDefaultIdleSeconds = 10;
// Attempts to reach a warm process of this build before running directly: a
// warm process may exit (idle, rebuilt) just as a client connects.
constexpr int kAttempts = 3;

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

std::atomic<pid_t> g_child{0};
volatile sig_atomic_t g_pending_signal = 0;

void forwardSignal(int signal) {
  const pid_t child = g_child.load();
  if (child > 0) {
    ::kill(child, signal);
  } else {
    g_pending_signal = signal;
  }
}

[[noreturn]] void runDirectly(const std::string& binary,
                              const std::vector<std::string>& args) {
  // A signal that came while no test ran yet ends this client as it would
  // have ended the test; one that comes from now on reaches the binary.
  for (int signal : kForwardedSignals) ::signal(signal, SIG_DFL);
  if (g_pending_signal != 0) ::raise(g_pending_signal);
  std::vector<char*> argv{const_cast<char*>(binary.c_str())};
  for (const std::string& arg : args)
    argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  ::execv(binary.c_str(), argv.data());
  std::cerr << "ranktest_warm_client: cannot execute " << binary << ": "
            << std::strerror(errno) << std::endl;
  std::exit(127);
}

[[noreturn]] void runDirectlyBecause(const std::string& reason,
                                     const std::string& binary,
                                     const std::vector<std::string>& args) {
  std::cerr << "[ranktest] no warm process for " << binary << " (" << reason
            << "): running it directly" << std::endl;
  runDirectly(binary, args);
}

// RANKTEST_WARM: unset or 1 on, 0 off; anything else is a mistake to report.
bool warmWanted() {
  const char* value = std::getenv("RANKTEST_WARM");
  if (value == nullptr || *value == '\0' || std::strcmp(value, "1") == 0) {
    return true;
  }
  if (std::strcmp(value, "0") == 0) return false;
  std::cerr << "[ranktest] RANKTEST_WARM='" << value << "' is not 0 or 1"
            << std::endl;
  std::exit(1);
}

int idleMilliseconds() {
  const char* value = std::getenv("RANKTEST_WARM_IDLE");
  if (value == nullptr || *value == '\0') {
    return static_cast<int>(kDefaultIdleSeconds * 1000);
  }
  // Below a tenth of a second a warm process would end between a ctest
  // run's tests and every test would start one.
  const std::optional<double> seconds =
      ranktest::internal::parseNumber(value, 0.1, 86400);
  if (!seconds) {
    std::cerr << "[ranktest] RANKTEST_WARM_IDLE='" << value
              << "' is not a number of seconds in [0.1, 86400]" << std::endl;
    std::exit(1);
  }
  return static_cast<int>(*seconds * 1000);
}

// Ends this process as the test's child ended.
[[noreturn]] void endAs(int status) {
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    // The same signal, for ctest to name ("SegFault", "Child aborted"),
    // without a core file of this client.
    rlimit no_core{0, 0};
    ::setrlimit(RLIMIT_CORE, &no_core);
    ::signal(signal, SIG_DFL);
    sigset_t unblock;
    sigemptyset(&unblock);
    sigaddset(&unblock, signal);
    ::sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
    ::raise(signal);
  }
  std::exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

// The ctest run that started this client is over (ctest was killed): its
// tests are not wanted any more.
[[noreturn]] void endWithTheRun(const std::string& binary) {
  std::cerr << "[ranktest] the ctest run of this test of " << binary
            << " has ended; the test does not run" << std::endl;
  std::exit(1);
}

// Waits for the test started as `child`, forwarding signals to it.
[[noreturn]] void followTest(int fd, pid_t child, const std::string& binary) {
  g_child = child;
  if (g_pending_signal != 0) ::kill(child, g_pending_signal);
  std::string answer;
  while (receivePacket(fd, answer)) {
    if (const auto status = numberAfter(answer, "exit ")) {
      endAs(static_cast<int>(*status));
    }
  }
  std::cerr << "[ranktest] the warm process of " << binary
            << " ended while this test ran (in its child " << child
            << "); the test was stopped with it" << std::endl;
  std::exit(1);
}

// A connection to the warm process at `name`, which is started first where
// none listens; -1 where it still cannot be reached (the caller tries
// again). Where it cannot start, or its ctest run is ending, this process
// runs the test itself or ends.
int connectOrStart(const std::string& binary,
                   const std::vector<std::string>& args,
                   const std::string& name, pid_t owner, int idle_ms) {
  const int fd = connectToAbstract(name);
  if (fd >= 0) return fd;
  const ranktest::warm::WarmStart start = ranktest::warm::startWarmProcess(
      binary, name, owner, args.size(), idle_ms);
  if (start.outcome == "ending") endWithTheRun(binary);
  if (start.outcome == "cannot") runDirectlyBecause(start.reason, binary, args);
  return connectToAbstract(name);
}

int runWarm(const std::string& binary, const std::vector<std::string>& args) {
  const std::optional<ranktest::internal::FileIdentity> identity =
      ranktest::internal::identifyFile(binary);
  if (!identity) runDirectly(binary, args);  // which reports the error
  const pid_t owner = ::getppid();
  const std::string name = ranktest::internal::warmSocketName(
      *identity, owner, args.size(), environ,
      ranktest::internal::processSettingsHash());
  std::error_code error;
  ranktest::internal::RunRequest request;
  request.cwd = std::filesystem::current_path(error).string();
  request.args = args;
  const std::string packet = ranktest::internal::encodeRunRequest(request);
  const int idle_ms = idleMilliseconds();

  std::string last_problem = "it was not reached";
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const int fd = connectOrStart(binary, args, name, owner, idle_ms);
    if (fd < 0) continue;
    if (ranktest::internal::peerUid(fd) != static_cast<long>(::getuid())) {
      runDirectlyBecause("its socket belongs to another user", binary, args);
    }
    if (!sendPacket(fd, packet, {0, 1, 2})) {
      const int error = errno;
      ::close(fd);
      // Anything but a closed peer is this client's own problem (arguments
      // past the socket's buffer, a closed standard stream): no retry cures
      // it.
      if (error != EPIPE && error != ECONNRESET && error != ENOTCONN) {
        runDirectlyBecause(
            std::string("cannot send it the test: ") + std::strerror(error),
            binary, args);
      }
      continue;  // it exited (idle) as we came: start another
    }
    std::string answer;
    if (!receivePacket(fd, answer)) {
      ::close(fd);  // it exited as we came: start another
      continue;
    }
    if (const auto pid = numberAfter(answer, "pid ")) {
      followTest(fd, static_cast<pid_t>(*pid), binary);
    }
    ::close(fd);
    if (answer == "ending") endWithTheRun(binary);
    if (answer == "stale") {
      last_problem = "its build changed";
      continue;  // rebuilt: the old one has freed the name
    }
    runDirectlyBecause(answer.rfind("refuse ", 0) == 0
                           ? answer.substr(7)
                           : "it answered '" + answer + "'",
                       binary, args);
  }
  runDirectlyBecause(
      last_problem + " after " + std::to_string(kAttempts) + " attempts",
      binary, args);
}

std::string absolutePath(const char* path) {
  std::error_code error;
  std::string absolute = std::filesystem::absolute(path, error).string();
  return error ? std::string(path) : absolute;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 4 && std::strcmp(argv[1], "--list-tests") == 0) {
    return ranktest::warm::printTestList(argv[2], absolutePath(argv[3]),
                                         environ);
  }
  if (argc < 2 || argv[1][0] == '-') {
    std::cerr << "usage: ranktest_warm_client <test binary> [args...]\n"
                 "       ranktest_warm_client --list-tests <cache file> <test "
                 "binary>\n";
    return 2;
  }
  const std::string binary = absolutePath(argv[1]);
  const std::vector<std::string> args(argv + 2, argv + argc);
  bool listing = false;
  for (const std::string& arg : args) {
    listing = listing || arg.rfind("--gtest_list_tests", 0) == 0;
  }
  // A listing registers tests differently (every declared cell): not a
  // test's run, and not what the warm process was initialised for.
  if (!warmWanted() || listing) runDirectly(binary, args);
  struct sigaction forward {};
  forward.sa_handler = forwardSignal;
  sigemptyset(&forward.sa_mask);
  for (int signal : kForwardedSignals) ::sigaction(signal, &forward, nullptr);
  return runWarm(binary, args);
}
