#include "job/liveness/store_silence_watch.h"

#include <signal.h>
#include <unistd.h>

#include "job/liveness/periods.h"
#include "wire/duration_text.h"

namespace ranktest::internal {

StoreSilenceWatch::StoreSilenceWatch(const HeartbeatThread& responder,
                                     std::string who, std::string store_address,
                                     std::chrono::milliseconds grace)
    : heartbeat_(responder),
      who_(std::move(who)),
      store_address_(std::move(store_address)),
      grace_(grace),
      launcher_(::getppid()),
      thread_([this] { watch(); }) {}

StoreSilenceWatch::~StoreSilenceWatch() { stop(); }

void StoreSilenceWatch::stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void StoreSilenceWatch::watch() {
  while (!stop_) {
    const std::chrono::milliseconds silent = heartbeat_.silence();
    if (silent >= grace_) giveUp(silent);
    stopIfTheLauncherIsGone();
    std::this_thread::sleep_for(liveness::kWatch);
  }
}

void StoreSilenceWatch::stopIfTheLauncherIsGone() {
  if (launcher_gone_ || ::getppid() == launcher_) return;
  launcher_gone_ = true;
  const std::string text = "[ranktest] " + who_ + ": its launcher (pid " +
                           std::to_string(launcher_) +
                           ") is gone; this rank stops as if interrupted\n";
  const ssize_t ignored = ::write(STDERR_FILENO, text.data(), text.size());
  (void)ignored;
  ::kill(::getpid(), SIGTERM);
}

void StoreSilenceWatch::giveUp(std::chrono::milliseconds silent) {
  const std::string phase = heartbeat_.phase();
  const std::string text =
      "[ranktest] " + who_ + " lost the job's store at " + store_address_ +
      ": it has not answered for " + secondsText(silent) +
      " (this host is cut off from it, or its process is stopped). This rank "
      "was " +
      phase + "; it gives up: its body is stopped and it exits with code 1\n";
  // The main thread may hold any lock (it waits in the store): write and
  // end without running anything of the process's teardown. The body, if
  // any, dies with this process (PR_SET_PDEATHSIG).
  const ssize_t ignored = ::write(STDERR_FILENO, text.data(), text.size());
  (void)ignored;
  ::_exit(1);
}

}  // namespace ranktest::internal
