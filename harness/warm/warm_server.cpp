#include "warm/warm_server.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "process/process_facts.h"
#include "warm/build_identity.h"
#include "warm/warm_protocol.h"
#include "wire/retry_on_eintr.h"

// Present when the binary was built with --coverage, or with LeakSanitizer
// (the runtimes' own names).
extern "C" void __gcov_dump()  // NOLINT(bugprone-reserved-identifier)
    __attribute__((weak));
extern "C" void __lsan_do_leak_check()  // NOLINT(bugprone-reserved-identifier)
    __attribute__((weak));
// The C++ runtime's: runs the destructors registered by one module (its
// statics), and __dso_handle names the module this code is linked into, the
// test binary itself (ranktest is a static library).
extern "C" void __cxa_finalize(
    void* dso)  // NOLINT(bugprone-reserved-identifier)
    ;
// Declared as the compiler declares it itself (a variable's name is not
// mangled either way).
extern void* __dso_handle;  // NOLINT(bugprone-reserved-identifier)

namespace ranktest::internal {
namespace {

using Clock = std::chrono::steady_clock;

// A test whose client is gone, or whose ctest run ended, gets SIGTERM (it
// stops its ranks and writes its XML) and this long before SIGKILL.
constexpr std::chrono::seconds kTerminateGrace{3};

// Why this process must not fork a test ("runs N threads"), or "" when it
// may: forking copies only the calling thread, and a lock another thread
// held stays locked in the child forever.
std::string whyForkingIsUnsafe() {
  const std::size_t threads = threadCount();
  if (threads == 1) return "";
  if (threads == 0) return "cannot count its threads (no /proc/self/task)";
  return "runs " + std::to_string(threads) +
         " threads, and forking it would be unsafe";
}

void writeAll(int fd, const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = retryOnEintr(
        [&] { return ::write(fd, text.data() + done, text.size() - done); });
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

struct RunningTest {
  pid_t pid = 0;
  int pidfd = -1;
  std::optional<Clock::time_point> kill_at;  // set once it was asked to stop
};

struct Connection {
  int fd = -1;  // -1 once the client is gone
  std::optional<RunningTest> test;
};

// What a forked child needs to become the test.
struct ChildStart {
  RunRequest request;
  std::vector<int> fds;
};

class WarmServer {
 public:
  // `refusal`: why it must not fork tests ("" where it may); it then
  // answers each client so, until its run ends or it is idle, so that its
  // clients run the binary directly without starting another.
  WarmServer(const WarmServeArguments& arguments, int listen_fd,
             int owner_pidfd, std::string refusal)
      : idle_(std::chrono::milliseconds(arguments.idle_ms)),
        argument_count_(0),
        listen_fd_(listen_fd),
        owner_pidfd_(owner_pidfd),
        build_(identifyFiles(mappedFiles())),
        refusal_(std::move(refusal)) {}

  // Serves until done (then exits); returns only in a forked child.
  ChildStart serve(std::size_t argument_count);

 private:
  void accept();
  std::optional<ChildStart> answer(Connection& connection);
  void reap(Connection& connection);
  void stop(RunningTest& test);
  void stopListening();
  // The ctest run that owns this process ended: stop every test, take no
  // more, and exit once they are reaped.
  void drainForOwnersEnd();
  // SIGKILL to each test stopped a grace ago that still runs.
  void killTestsPastTheirGrace();
  void closeInChild();
  bool finished() const;  // nothing runs, and nothing will

  const std::chrono::milliseconds idle_;
  std::size_t argument_count_;
  int listen_fd_;
  int owner_pidfd_;
  const std::vector<FileIdentity> build_;
  std::string refusal_;
  std::list<Connection> connections_;
  bool draining_ = false;  // the ctest run ended, or the build changed
  Clock::time_point idle_since_ = Clock::now();
};

void WarmServer::stopListening() {
  // Closing the socket frees its abstract name at once, for a warm process
  // of the new build (or of the next run) to take.
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

void WarmServer::stop(RunningTest& test) {
  if (test.kill_at) return;
  ::kill(test.pid, SIGTERM);
  test.kill_at = Clock::now() + kTerminateGrace;
}

void WarmServer::accept() {
  const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return;
  // The name is abstract, so any local user could connect: serve our own.
  if (peerUid(fd) != static_cast<long>(::getuid())) {
    ::close(fd);
    return;
  }
  connections_.push_back(Connection{fd, std::nullopt});
}

void WarmServer::closeInChild() {
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (owner_pidfd_ >= 0) ::close(owner_pidfd_);
  for (Connection& c : connections_) {
    if (c.fd >= 0) ::close(c.fd);
    if (c.test) ::close(c.test->pidfd);
  }
}

std::optional<ChildStart> WarmServer::answer(Connection& connection) {
  std::string packet;
  std::vector<int> fds;
  if (!receivePacket(connection.fd, packet, &fds)) {
    ::close(connection.fd);
    connection.fd = -1;
    return std::nullopt;
  }
  auto refuse = [&](const std::string& reply) {
    sendPacket(connection.fd, reply);
    for (int fd : fds) ::close(fd);
    ::close(connection.fd);
    connection.fd = -1;
    return std::nullopt;
  };
  std::optional<RunRequest> request = decodeRunRequest(packet);
  if (!request || fds.size() != 3 || request->args.size() != argument_count_) {
    return refuse("refuse malformed request");
  }
  if (owner_pidfd_ < 0) return refuse("ending");  // its ctest run ended
  if (draining_ || !stillTheSame(build_)) {
    // Rebuilt: never serve a test from an old build.
    draining_ = true;
    stopListening();
    return refuse("stale");
  }
  if (refusal_.empty()) {
    if (const std::string unsafe = whyForkingIsUnsafe(); !unsafe.empty()) {
      refusal_ = "the warm process " + unsafe;
    }
  }
  if (!refusal_.empty()) return refuse("refuse " + refusal_);
  const pid_t server = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    return refuse(std::string("refuse fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // The test dies with its warm process; its ranks die with it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != server) ::_exit(1);
    closeInChild();
    return ChildStart{std::move(*request), std::move(fds)};
  }
  for (int fd : fds) ::close(fd);
  RunningTest test;
  test.pid = pid;
  test.pidfd = pidfdOpen(pid);
  if (test.pidfd < 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
    return refuse(std::string("refuse pidfd_open: ") + std::strerror(errno));
  }
  connection.test = test;
  if (!sendPacket(connection.fd, "pid " + std::to_string(pid))) {
    ::close(connection.fd);
    connection.fd = -1;
    stop(*connection.test);
  }
  return std::nullopt;
}

void WarmServer::reap(Connection& connection) {
  int status = 0;
  if (::waitpid(connection.test->pid, &status, WNOHANG) !=
      connection.test->pid) {
    return;
  }
  ::close(connection.test->pidfd);
  connection.test.reset();
  if (connection.fd >= 0) {
    sendPacket(connection.fd, "exit " + std::to_string(status));
    ::close(connection.fd);
    connection.fd = -1;
  }
}

bool WarmServer::finished() const {
  if (!connections_.empty()) return false;
  return draining_ || Clock::now() - idle_since_ >= idle_;
}

ChildStart WarmServer::serve(std::size_t argument_count) {
  argument_count_ = argument_count;
  for (;;) {
    connections_.remove_if(
        [](const Connection& c) { return c.fd < 0 && !c.test; });
    if (finished()) ::_exit(0);
    if (!connections_.empty()) idle_since_ = Clock::now();

    // Poll: the listening socket, the owner, every client and test.
    std::vector<pollfd> polled;
    if (listen_fd_ >= 0) polled.push_back({listen_fd_, POLLIN, 0});
    if (owner_pidfd_ >= 0) polled.push_back({owner_pidfd_, POLLIN, 0});
    // Wake for the idle limit, or to SIGKILL a test past its grace.
    Clock::time_point wake = connections_.empty()
                                 ? idle_since_ + idle_
                                 : Clock::now() + std::chrono::seconds(60);
    for (const Connection& c : connections_) {
      if (c.fd >= 0) polled.push_back({c.fd, POLLIN, 0});
      if (c.test) {
        polled.push_back({c.test->pidfd, POLLIN, 0});
        if (c.test->kill_at) wake = std::min(wake, *c.test->kill_at);
      }
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(
        wake - Clock::now());
    const int ready =
        ::poll(polled.data(), polled.size(),
               static_cast<int>(std::max<long>(0, wait.count()) + 1));
    if (ready < 0 && errno != EINTR) ::_exit(1);
    auto events = [&](int fd) {
      for (const pollfd& p : polled) {
        if (p.fd == fd) return p.revents;
      }
      return short{0};
    };

    if (owner_pidfd_ >= 0 && events(owner_pidfd_) != 0) drainForOwnersEnd();
    for (Connection& c : connections_) {
      if (c.test && events(c.test->pidfd) != 0) reap(c);
      if (c.fd < 0 || events(c.fd) == 0) continue;
      if (!c.test) {
        if (std::optional<ChildStart> child = answer(c))
          return std::move(*child);
        continue;
      }
      // A client says nothing while its test runs: this is its end (ctest
      // killed it at its timeout). Its test must not run on unwatched.
      ::close(c.fd);
      c.fd = -1;
      stop(*c.test);
    }
    killTestsPastTheirGrace();
    if (listen_fd_ >= 0 && (events(listen_fd_) & POLLIN) != 0) accept();
  }
}

void WarmServer::drainForOwnersEnd() {
  // The ctest run is over: stop what still runs, then exit.
  ::close(owner_pidfd_);
  owner_pidfd_ = -1;
  draining_ = true;
  stopListening();
  for (Connection& c : connections_) {
    if (c.test) stop(*c.test);
  }
}

void WarmServer::killTestsPastTheirGrace() {
  for (Connection& c : connections_) {
    if (c.test && c.test->kill_at && Clock::now() >= *c.test->kill_at) {
      ::kill(c.test->pid, SIGKILL);
    }
  }
}

// Registered in the child, so run before any handler or static destructor
// registered in the warm process: a child ends here, sparing the tear-down
// of libtorch's operator registry (a tenth of a second per test). What an
// exit must still do is done: the test binary's own statics are destroyed,
// as in a process of its own (a destructor that crashes fails the test, as
// it would run directly), streams flushed, coverage written, leaks checked.
// Destructors of objects built after the fork (function-local statics of the
// test) have run already. Statics of shared libraries other than the binary
// are not destroyed (docs/harness.md).
void endWithoutStaticTearDown(int status, void*) {
  __cxa_finalize(static_cast<void*>(&__dso_handle));
  std::cout.flush();
  std::cerr.flush();
  std::clog.flush();
  std::fflush(nullptr);
  if (__gcov_dump != nullptr) __gcov_dump();
  if (__lsan_do_leak_check != nullptr) __lsan_do_leak_check();
  ::_exit(status);
}

// `ps` shows a test's child with the test's arguments rather than the warm
// process's: written over the warm process's own (as far as they fit; the
// kernel shows the process's original argument area).
void showTestArguments(int argc, char** argv,
                       const std::vector<std::string>& args) {
  char* begin = argv[1];
  char* end = argv[argc - 1] + std::strlen(argv[argc - 1]);
  std::string text;
  for (const std::string& arg : args) text += arg + '\0';
  const std::size_t room = static_cast<std::size_t>(end - begin);
  const std::size_t size = std::min(text.size(), room);
  std::copy_n(text.data(), size, begin);
  std::fill(begin + size, end, '\0');
}

// The child continues as the binary started with the test's arguments: they
// replace the placeholders the warm process was started with.
void becomeTheTest(const ChildStart& child, int* argc, char** argv) {
  for (int stream = 0; stream < 3; ++stream) {
    ::dup2(child.fds[static_cast<std::size_t>(stream)], stream);
  }
  for (int fd : child.fds) {
    if (fd > 2) ::close(fd);
  }
  if (::chdir(child.request.cwd.c_str()) != 0) {
    std::fprintf(stderr, "[ranktest] warm child: cannot enter %s: %s\n",
                 child.request.cwd.c_str(), std::strerror(errno));
    ::_exit(1);
  }
  showTestArguments(*argc, argv, child.request.args);
  int count = 1;
  for (const std::string& arg : child.request.args) {
    argv[count++] = ::strdup(arg.c_str());
  }
  argv[count] = nullptr;
  *argc = count;
  ::on_exit(endWithoutStaticTearDown, nullptr);
}

}  // namespace

void serveWarmIfAsked(int* argc, char** argv) {
  if (*argc < 2) return;
  const std::optional<WarmServeArguments> arguments = decodeServeFlag(argv[1]);
  if (!arguments) return;
  const int ready = arguments->ready_fd;
  auto cannot = [ready](const std::string& reason) {
    writeAll(ready, "cannot " + reason + "\n");
    ::_exit(0);
  };
  // A binary that cannot be forked from still listens, to refuse.
  std::string refusal;
  if (!::testing::internal::GetArgvs().empty()) {
    refusal = "main() initialised googletest before ranktest::init";
  } else if (const std::string unsafe = whyForkingIsUnsafe(); !unsafe.empty()) {
    refusal = "after static initialisation it " + unsafe;
  }
  const int listen_fd = listenOnAbstract(arguments->socket_name);
  if (listen_fd < 0) {
    if (errno != EADDRINUSE)
      cannot(std::string("listen: ") + std::strerror(errno));
    writeAll(ready, "busy\n");
    ::_exit(0);
  }
  const int owner_pidfd = pidfdOpen(arguments->owner);
  if (owner_pidfd < 0 && errno == ESRCH) {
    writeAll(ready, "ending\n");  // its ctest run is gone already
    ::_exit(0);
  }
  if (owner_pidfd < 0) {
    cannot(std::string("pidfd_open of the ctest run: ") + std::strerror(errno));
  }
  WarmServer server(*arguments, listen_fd, owner_pidfd, std::move(refusal));
  writeAll(ready, "ready\n");
  ::close(ready);
  const ChildStart child = server.serve(static_cast<std::size_t>(*argc - 2));
  becomeTheTest(child, argc, argv);
}

}  // namespace ranktest::internal
