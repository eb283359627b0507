#include "job/liveness/sentinel.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "job/attempt_store.h"
#include "job/liveness/periods.h"
#include "process/process_facts.h"
#include "rank/exception_chain.h"
#include "ranktest/settings.h"
#include "torch_compat/tcp_store.h"
#include "wire/check.h"
#include "wire/duration_text.h"
#include "wire/retry_on_eintr.h"
#include "wire/store_keys.h"

namespace ranktest::internal {
namespace {

using namespace std::chrono_literals;

void say(const std::string& text) {
  const ssize_t ignored = ::write(STDERR_FILENO, text.data(), text.size());
  (void)ignored;
}

// What `fd` gives until its writer closes it, or nullopt if that takes
// longer than `limit`.
std::optional<std::string> readUntilClosed(int fd,
                                           std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  std::string text;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd readable{.fd = fd, .events = POLLIN, .revents = 0};
    const int ready = ::poll(&readable, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return std::nullopt;
    char chunk[512];
    const ssize_t n =
        retryOnEintr([&] { return ::read(fd, chunk, sizeof chunk); });
    if (n <= 0) return text;
    text.append(chunk, static_cast<std::size_t>(n));
  }
}

// Kills the rank, saying why, and ends the sentinel.
[[noreturn]] void endRank(pid_t rank_pid, const std::string& who,
                          const std::string& why) {
  say("[ranktest] " + who + ": " + why +
      "; its sentinel kills it, so that its launcher ends\n");
  ::kill(rank_pid, SIGKILL);
  ::_exit(0);
}

// Where `options.isServer`, starts the job's store server in this process
// and tells the rank through `status` ('1', or '0' and the error); never
// destroyed, since the sentinel ends with _exit.
void serveIfAsked(const std::string& host, const c10d::TCPStoreOptions& options,
                  int status) {
  if (!options.isServer) return;
  std::string answer = "1";
  try {
    new c10::intrusive_ptr<c10d::TCPStore>(
        c10::make_intrusive<c10d::TCPStore>(host, options));
  } catch (const std::exception& error) {
    answer = std::string("0") + messageOf(error);
  }
  const ssize_t ignored = ::write(status, answer.data(), answer.size());
  (void)ignored;
  if (answer[0] != '1') ::_exit(1);
}

// The sentinel's whole life; never returns. A thread watches the store for
// the job's word (a store call may wait forever where the store's host is
// cut off or stopped); the main thread watches whether the rank is stopped.
[[noreturn]] void watchOver(pid_t rank_pid, const std::string& host,
                            c10d::TCPStoreOptions options, int rank,
                            std::optional<int> restart_count,
                            const std::string& who, int status) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != rank_pid) ::_exit(0);  // the rank is gone already
  // An interrupt reaches the rank's whole process group: the rank then
  // collects the reports that still come, through the store this process
  // may serve, which must outlive it. It ends with the rank.
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGTERM, SIG_IGN);
  serveIfAsked(host, options, status);
  ::close(status);
  std::thread([=]() mutable {
    try {
      options.isServer = false;
      const auto store = attemptStore(
          c10::make_intrusive<c10d::TCPStore>(host, options), restart_count);
      for (;;) {
        std::this_thread::sleep_for(liveness::kSentinel);
        if (!store->check({keys::endRank(rank)})) continue;
        const std::vector<uint8_t> reason = store->get(keys::endRank(rank));
        const bool stopped = processState(rank_pid) == 'T';
        // Acknowledged first: the rank's death ends this process too.
        store->set(keys::endRankDone(rank), std::vector<uint8_t>{'1'});
        endRank(rank_pid, who,
                "the job gave up on this rank (" +
                    std::string(reason.begin(), reason.end()) + ")" +
                    (stopped ? " and its process is stopped" : ""));
      }
    } catch (const std::exception&) {
      // The store is gone: the job is over, or its store's process; a
      // stopped rank is still ended below.
    }
  }).detach();
  // A rank stopped this long is given up on by the others (after the peer
  // silence) even where they cannot say so: its host cut off from the
  // store, or its own process serving it (no sentinel could).
  const std::chrono::milliseconds silence = settings().peer_silence;
  const std::chrono::milliseconds limit =
      silence + liveness::kStoppedBeyondSilence;
  auto running = std::chrono::steady_clock::now();
  for (;;) {
    std::this_thread::sleep_for(liveness::kSentinel);
    if (processState(rank_pid) != 'T') {
      running = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - running >= limit) {
      endRank(rank_pid, who,
              "its process has been stopped for " + secondsText(limit) +
                  ", and the other ranks give up on a rank after " +
                  secondsText(silence));
    }
  }
}

}  // namespace

bool startRankSentinel(const std::string& host,
                       const c10d::TCPStoreOptions& options, int rank,
                       const std::string& who,
                       std::optional<int> restart_count) {
  if (threadCount() != 1) return false;
  int status[2];
  if (::pipe2(status, O_CLOEXEC) != 0) return false;
  const pid_t rank_pid = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(status[0]);
    ::close(status[1]);
    return false;
  }
  if (pid == 0) {
    ::close(status[0]);
    watchOver(rank_pid, host, options, rank, restart_count, who, status[1]);
  }
  ::close(status[1]);
  const std::optional<std::string> answer =
      readUntilClosed(status[0], options.timeout);
  ::close(status[0]);
  if (!options.isServer || answer == "1") return true;
  if (!answer) {
    RANKTEST_FAIL(
        "its sentinel, which was to serve it, did not "
        "start the server within " +
        secondsText(options.timeout));
  }
  RANKTEST_FAIL(answer->empty() ? "its sentinel, which was to serve it, ended "
                                  "before the server started"
                                : answer->substr(1));
}

bool endGivenUpRank(c10d::Store& store, int rank, const std::string& reason,
                    std::chrono::milliseconds wait) {
  try {
    store.set(keys::endRank(rank),
              std::vector<uint8_t>(reason.begin(), reason.end()));
    store.wait({keys::endRankDone(rank)}, wait);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace ranktest::internal
