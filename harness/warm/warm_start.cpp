#include "warm_start.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "process/program.h"
#include "warm/warm_protocol.h"
#include "wire/retry_on_eintr.h"

namespace ranktest::warm {
namespace {

constexpr int kReadyFd = 3;

// In the warm process's child before exec: nothing of ctest's (a warm
// process holding a test's output pipe would keep ctest waiting for that
// test's end until the warm process ended), the ready pipe at kReadyFd, and
// its pid said on it first. Async-signal-safe.
void prepareWarmChild(int ready_write, int exec_error_fd) {
  const int devnull = ::open("/dev/null", O_RDWR);
  for (int stream = 0; stream < 3; ++stream) ::dup2(devnull, stream);
  if (ready_write == kReadyFd) {
    ::fcntl(kReadyFd, F_SETFD, 0);
  } else {
    ::dup2(ready_write, kReadyFd);
  }
  internal::closeDescriptorsAbove(kReadyFd, exec_error_fd);
  char line[32];
  const int length = snprintf(line, sizeof(line), "pid %d\n", ::getpid());
  if (length > 0) (void)!::write(kReadyFd, line, static_cast<size_t>(length));
}

// The warm process's answer on `ready_fd`, within kSuiteStartLimit: its second
// line (the first is its pid, for stopping one that stays silent).
WarmStart readTheAnswer(int ready_fd) {
  // Its answer is the second line; the first is its pid.
  std::string said;
  const auto give_up = std::chrono::steady_clock::now() + kSuiteStartLimit;
  WarmStart start{"cannot", "it exited while starting"};
  for (;;) {
    const std::size_t first_end = said.find('\n');
    const std::size_t second_end = first_end == std::string::npos
                                       ? std::string::npos
                                       : said.find('\n', first_end + 1);
    if (second_end != std::string::npos) {
      const std::string answer =
          said.substr(first_end + 1, second_end - first_end - 1);
      const std::size_t space = answer.find(' ');
      start.outcome = answer.substr(0, space);
      start.reason = space == std::string::npos ? "" : answer.substr(space + 1);
      break;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        give_up - std::chrono::steady_clock::now());
    pollfd fd{ready_fd, POLLIN, 0};
    const int polled =
        left.count() <= 0 ? 0 : ::poll(&fd, 1, static_cast<int>(left.count()));
    // A signal (forwarded to the test once it runs) must not turn the
    // bounded wait into read()'s unbounded one.
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) {
      // Silent past the limit: stop it (its first line, once whole, is
      // "pid N").
      const auto pid =
          first_end == std::string::npos
              ? std::nullopt
              : internal::numberAfter(said.substr(0, first_end), "pid ");
      if (pid) ::kill(static_cast<pid_t>(*pid), SIGKILL);
      start = {"cannot", "it did not answer within " +
                             std::to_string(kSuiteStartLimit.count()) + " s"};
      break;
    }
    char chunk[256];
    const ssize_t n = internal::retryOnEintr(
        [&] { return ::read(ready_fd, chunk, sizeof(chunk)); });
    if (n <= 0) break;
    said.append(chunk, static_cast<std::size_t>(n));
  }
  return start;
}

}  // namespace

WarmStart startWarmProcess(const std::string& binary,
                           const std::string& socket_name, pid_t owner,
                           std::size_t argument_count, int idle_ms) {
  internal::WarmServeArguments serve;
  serve.socket_name = socket_name;
  serve.ready_fd = kReadyFd;
  serve.owner = owner;
  serve.idle_ms = idle_ms;
  internal::ProgramCall call;
  call.executable = binary;
  call.arguments = {binary, internal::encodeServeFlag(serve)};
  call.arguments.resize(2 + argument_count, internal::kWarmArgumentSlot);
  call.kept_descriptors = {kReadyFd};

  int ready[2];
  if (::pipe2(ready, O_CLOEXEC) != 0) {
    return {"cannot", std::string("pipe2: ") + std::strerror(errno)};
  }
  const int ready_write = ready[1];
  call.child_setup = [ready_write](int exec_error_fd) {
    prepareWarmChild(ready_write, exec_error_fd);
  };
  const pid_t session_leader = ::fork();
  if (session_leader == 0) {
    // A session of its own (no terminal's signals), and not our child:
    // the leader exits once it started it, and the warm process is
    // re-parented. (This client has no other thread: the leader may start
    // a program as any process would.)
    ::setsid();
    try {
      internal::startProgram(call);
    } catch (const std::exception&) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  if (session_leader < 0) {
    ::close(ready[0]);
    return {"cannot", std::string("fork: ") + std::strerror(errno)};
  }
  ::waitpid(session_leader, nullptr, 0);

  WarmStart start = readTheAnswer(ready[0]);
  ::close(ready[0]);
  if (start.outcome != "ready" && start.outcome != "busy" &&
      start.outcome != "ending" && start.outcome != "cannot") {
    start = {"cannot", "it answered '" + start.outcome + "'"};
  }
  return start;
}

}  // namespace ranktest::warm
