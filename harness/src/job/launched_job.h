#pragma once

// A suite binary started by a launcher (torchrun, mpirun, srun; see
// launcher_env.h): each process is one rank of the job, and gtest runs the
// same tests in the same order in every rank. Per distributed test a rank
// runs its body in a child it supervises as the forked mode does, publishes
// its report to the job's TCPStore (rank 0 serves it at MASTER_ADDR), and
// reads every other rank's: all ranks then judge the same reports alike and
// end the test, and the run, with the same outcome and exit code. A rank
// that fails sets the test's abort key, which stops the others' bodies at
// once. Rank 0 alone prints and writes the XML.

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

#include "job/launcher_env.h"
#include "job/liveness/heartbeat_thread.h"
#include "job/liveness/store_silence_watch.h"
#include "job/node_layout.h"
#include "plan/registry.h"
#include "process/supervisor.h"
#include "ranktest/run_ranks.h"

namespace ranktest::internal {

class LaunchedJob {
 public:
  using Clock = std::chrono::steady_clock;

  // Detects a launcher and joins its job's store (waiting up to `timeout`
  // for rank 0's); nullptr when no launcher started this process. Then it
  // works out the node layout with the other ranks and exports it as
  // torchrun does (LOCAL_RANK, LOCAL_WORLD_SIZE, GROUP_RANK, where unset),
  // with GLOO_SOCKET_IFNAME (where unset) naming the interface toward rank 0:
  // node subgroups and every Gloo group of a body then span the hosts. Throws
  // std::invalid_argument on a partial or inconsistent environment and
  // std::runtime_error when the store cannot be reached.
  static std::unique_ptr<LaunchedJob> join(std::chrono::milliseconds timeout);

  // How long join() waits for the job to form by default: five default test
  // deadlines (RANKTEST_TIMEOUT_SCALE applied), as every rank may first
  // load a large binary on a loaded host.
  static std::chrono::milliseconds formingLimit();

  // The job joined by init() (or by runRanks), or nullptr.
  static LaunchedJob* current();
  static void setCurrent(std::unique_ptr<LaunchedJob> job);

  const LaunchedRank& launched() const { return launched_; }
  // What a failure of the job's machinery (`error`, mostly its store's
  // connection) means for the run, as a test failure's text.
  std::string describeJobFailure(const std::exception& error) const;
  // This rank's node: the launcher's LOCAL_RANK, LOCAL_WORLD_SIZE and node
  // index where it gives them, otherwise worked out from the ranks' addresses.
  const NodeLayout& layout() const { return layout_; }
  // The job's store (served by rank 0), for groups of the job's own.
  const c10::intrusive_ptr<c10d::Store>& store() const { return store_; }
  // This host's address toward rank 0, where its Gloo devices listen.
  const std::string& glooHost() const { return gloo_host_; }

  // Runs test `t` as this rank: agrees with the other ranks on the test and
  // on skipping (`local_skip`, this host's conditions), runs the body in a
  // child supervised with `options`, and returns every rank's report. A rank
  // whose report does not come by the deadline (plus kReportGrace), or whose
  // heartbeat has not moved for the peer silence (RANKTEST_PEER_SILENCE,
  // 10 s) while it is waited for, is named with the last phase it
  // published; the job then gives up on it, and every later test fails at
  // once naming it. Throws std::runtime_error, naming what each rank runs,
  // where the ranks are not at the same test (another --gtest_filter or
  // binary); every later distributed test then throws it at once.
  // `body`, where given, is what the rank's child runs instead of the
  // registered test (runRanks under a launcher): it is forked, whatever
  // t.options.start_method says.
  SuperviseResult run(const TestInstance& t, SuperviseOptions options,
                      const std::optional<Skip>& local_skip,
                      const std::function<void(const Rank&)>* body = nullptr);

  // After the last test, with this rank's exit code: rank 0 serves the store
  // until every rank is done (a rank silent for the peer silence is given up
  // on).
  // The sentinels of the ranks given up on then end them. Returns the job's
  // exit code, the same in every rank: the first non-zero of rank 0's (which
  // alone runs the plain tests, and hears from every rank that its tests are
  // over before it says its code) and this rank's; non-zero where some rank
  // found the ranks at different tests. Rank 0 does not print what it found
  // only now (a disagreement found after its run had ended, a rank given up
  // on at the end): endFailures() has it, for the run's XML. Once finished,
  // returns the job's code again (or `exit_code` where it is not 0). A job
  // whose store fails meanwhile ends with a non-zero code and the failure in
  // endFailures().
  int finish(int exit_code);

  // What rank 0's finish() found wrong with the job after its own last
  // test, one line each; "" where nothing (and on other ranks).
  const std::string& endFailures() const { return end_failures_; }

  // How long past a test's deadline (and the stack grace) a rank's report
  // may come.
  static constexpr std::chrono::seconds kReportGrace{10};

 private:
  // finish()'s exchange with the other ranks; throws where the store fails.
  int agreeOnTheEnd(int exit_code);
  // Its two sides: rank 0 hears that every rank's tests are over, says the
  // job's code and hears that each read it; another rank says its tests
  // are over and waits for the code. Each returns the job's code.
  int endAsRankZero(int exit_code);
  int endAsOtherRank(int exit_code);
  // Rank 0 waits up to 30 s for each rank not given up on to set key(rank)
  // (`what`, for the failure where it does not, which makes `job_code`
  // non-zero); false where this rank was interrupted meanwhile.
  bool hearFromEveryRank(std::string (*key)(int), const std::string& what,
                         int& job_code);
  // One more line of endFailures().
  void addEndFailure(const std::string& line);

  // run()'s steps, in order, on the test at hand (`Round`): every rank at
  // the same test (or the reports of a test that did not start); the ranks'
  // skip decisions (the reports of a skip, where one skipped); this rank's
  // body under its supervisor (its report, published; `all` gets the
  // deadline's and an interrupt's outcome); every other rank's report.
  struct Round;
  std::optional<SuperviseResult> agreeOnTheTest(Round& round);
  std::optional<SuperviseResult> agreeOnSkips(
      Round& round, const std::optional<Skip>& local_skip);
  RankReport superviseTheBody(Round& round, SuperviseResult& all);
  void gatherReports(const Round& round, const RankReport& mine,
                     Clock::time_point reports_due, SuperviseResult& all);
  // What this rank last did, for a peer that waits for it in vain.
  void phase(const Round& round, const std::string& what);
  // How a wait for a peer ended: what was waited for came; the time was
  // up; the peer went silent; another rank gave up on some rank (the job's
  // lost rank), which ends the wait at the start of a test; this process
  // was interrupted (SIGINT, SIGTERM); another rank that waited for the same
  // value was, and its mark hides the value (its launcher, on another host,
  // may not signal this rank).
  enum class Await {
    kArrived,
    kLate,
    kSilent,
    kJobGaveUp,
    kInterrupted,
    kPeerInterrupted
  };

  LaunchedJob(LaunchedRank launched, std::string store_address);

  // join()'s connection to the job's store at `host`:`port` (served by this
  // rank's sentinel where `serve`), claimed for this job, with the state
  // responder on a second connection and the store silence watch on it; throws,
  // naming the store, where it cannot.
  void connect(const std::string& host, int port,
               std::chrono::milliseconds timeout, bool serve);

  // Publishes where this rank runs, once per rank: a second process with
  // this rank throws, and fails the job's forming for every rank.
  void claimRank();

  std::string get(const std::string& key);
  // The value of `key` where some rank has set it.
  std::optional<std::string> published(const std::string& key);
  struct Awaited {
    Await how;
    std::string value;  // where it arrived; kPeerInterrupted: that rank
  };
  // A wait of the main thread, which the responder's thread watches.
  struct Watched {
    std::string key;
    int rank;
    Clock::time_point until;
    bool at_test_start;
    bool joining;  // a peer that never beat is late, not silent
    bool own_key;  // only this rank waits on it: an interrupt may mark it
  };
  // A peer's heartbeat count as this rank last saw it, and since when it
  // has shown that count: the same count later means no beat since then.
  struct Seen {
    std::int64_t beat = -1;
    Clock::time_point since;
  };

  // Waits until `until` for `key`, which `rank` sets, while `rank`'s
  // heartbeat moves; `at_test_start`: also until the job gave up on a rank;
  // `joining`: a peer whose heartbeat never started (it has not reached
  // the store yet) is waited for until `until`, not the peer silence;
  // `own_key`: no other rank waits on `key`.
  Awaited awaitFrom(const std::string& key, int rank, Clock::time_point until,
                    bool at_test_start = false, bool joining = false,
                    bool own_key = false);
  // On the responder's thread, each poll: ends the main thread's wait where
  // it is late, its peer silent, or the job gave up on a rank; while this
  // rank's body runs, notes some peers' heartbeats (notePeerBeats()).
  void watchWaits(c10d::Store& store);
  // Reads `rank`'s heartbeat count into seen_ and returns that entry.
  Seen noteBeat(c10d::Store& store, int rank);
  // Notes the heartbeats of up to 4 peers in turn, so that a wait for a
  // peer silent since before it began ends at once, not a peer silence
  // later.
  void notePeerBeats(c10d::Store& store);
  // Takes the job's lost rank as this rank's too, where another rank gave
  // up on one; whether a rank is lost.
  bool adoptLostRank();
  // Gives up on `rank`, which did not set what this rank waited for in
  // `test` (`how`), and returns its report: its host, its last phase and,
  // when it is late but alive, its answer to "where are you?". A rank other
  // than 0, whose reports nobody prints, prints that line itself.
  RankReport giveUpOn(int rank, Await how, const std::string& waited_for,
                      const std::string& test);
  // Reports of a test that cannot run because rank lost_rank_ is gone;
  // `lost` is that rank's own report where this test found it gone.
  SuperviseResult withoutLostRank(std::optional<RankReport> lost = {}) const;
  // Reports of a test that did not start because a wait for `rank` ended
  // without its value (`awaited`): the job's lost rank where another rank
  // gave up on one, the interrupt, or giving up on `rank` (see giveUpOn()).
  SuperviseResult notStarted(const Awaited& awaited, int rank,
                             const std::string& waited_for,
                             const TestInstance& t);
  // "rank R" where another rank's interrupt ended `awaited`, else `self`.
  static std::string whoWasInterrupted(const Awaited& awaited,
                                       const std::string& self);
  // Reports of a test whose start an interrupt (SIGINT, SIGTERM) of
  // this run, or of rank 0 (`awaited`), ended.
  SuperviseResult interruptedBeforeTheBody(const Awaited& awaited,
                                           const TestInstance& t) const;
  // The failure that a rank whose run was not interrupted records where
  // rank `rank`'s was: the test's outcome is unknown, so it must not pass.
  static RankFailure peerInterrupted(const TestInstance& t, int rank,
                                     const std::string& when);
  // Works out the node layout with the other ranks and exports it (see
  // join()); throws, naming the rank, where one has not joined within
  // `timeout` or went silent while the job formed (see notJoined()).
  void placeOnNodes(std::chrono::milliseconds timeout);
  // Throws the error of a wait for `rank` at the job's start that ended
  // without its value (`how`; `timeout`: how long it was waited for).
  [[noreturn]] void notJoined(int rank, Await how,
                              std::chrono::milliseconds timeout);

  LaunchedRank launched_;
  std::string store_address_;  // host:port
  std::string gloo_host_;      // this host's address toward rank 0
  std::string where_;          // "host h (address), pid p"
  NodeLayout layout_;
  // Before the responder, whose thread uses them until it is destroyed.
  std::mutex watch_mutex_;
  std::optional<Watched> watched_;
  std::vector<Seen> seen_;                // by rank
  std::atomic<bool> supervising_{false};  // this rank's body runs
  int last_polled_ = 0;  // notePeerBeats()'s turn: the responder's thread
  std::unique_ptr<HeartbeatThread> heartbeat_;
  std::unique_ptr<StoreSilenceWatch> silence_watch_;
  std::optional<int> lost_rank_;  // the first rank that stopped reporting
  std::string lost_in_;           // the test where it did
  // Every rank given up on, with why: their sentinels end them in finish().
  std::map<int, std::string> given_up_;
  // Where the ranks were found at different tests: what run() throws.
  std::optional<std::string> disagreement_;
  c10::intrusive_ptr<c10d::Store> store_;
  int sequence_ = 0;             // distributed tests run so far
  std::optional<int> finished_;  // the job's exit code, once finish() ran
  std::string end_failures_;
};

}  // namespace ranktest::internal
