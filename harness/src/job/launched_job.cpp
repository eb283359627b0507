#include "job/launched_job.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <vector>

#include "job/attempt_store.h"
#include "job/first_value.h"
#include "job/job_claim.h"
#include "job/rank_sentinel.h"
#include "job/test_agreement.h"
#include "process/interrupt.h"
#include "process/rank_process.h"
#include "rank/exception_chain.h"
#include "ranktest/settings.h"
#include "torch_compat/tcp_store.h"
#include "verdict/verdict.h"
#include "wire/check.h"
#include "wire/duration_text.h"
#include "wire/host_port.h"
#include "wire/report_codec.h"
#include "wire/store_keys.h"

namespace ranktest::internal {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Never destroyed: a forked body that calls exit() runs static destructors,
// and the store's would wait for threads that only its parent has.
LaunchedJob*& currentJob() {
  static LaunchedJob* job = nullptr;
  return job;
}

// The numeric text of an IPv4 or IPv6 socket address, a link-local IPv6
// one with its interface ("fe80::1%eth0": Gloo binds it); "" for another
// kind.
std::string numericHost(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = {};
  const void* bytes = nullptr;
  std::uint32_t scope = 0;
  if (address->sa_family == AF_INET) {
    bytes = &reinterpret_cast<const sockaddr_in*>(address)->sin_addr;
  } else if (address->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
    bytes = &in6->sin6_addr;
    scope = in6->sin6_scope_id;
  } else {
    return "";
  }
  if (::inet_ntop(address->sa_family, bytes, text, sizeof(text)) == nullptr) {
    return "";
  }
  char interface[IF_NAMESIZE] = {};
  if (scope != 0 && ::if_indextoname(scope, interface) != nullptr) {
    return std::string(text) + "%" + interface;
  }
  return text;
}

// The address of this host's interface toward `host`: the one its peers
// reach it at. IPv4 where `host` has an IPv4 address that routes, as every
// rank then decides alike; else IPv6. A UDP connect sends nothing; it only
// picks the route. Where none routes, no peer of this rank's could be
// reached either: a loopback address in its place would only move the
// failure to a timeout that names something else.
std::string localAddressToward(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints,
                    &found) != 0 ||
      found == nullptr) {
    RANKTEST_FAIL("ranktest: cannot resolve MASTER_ADDR '" + host + "'");
  }
  std::string address;
  std::string tried;  // each address, with why it does not route
  for (const int family : {AF_INET, AF_INET6}) {
    for (const addrinfo* a = found; a != nullptr && address.empty();
         a = a->ai_next) {
      if (a->ai_family != family) continue;
      const std::string numeric = numericHost(a->ai_addr);
      const int fd = ::socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
      sockaddr_storage local{};
      socklen_t size = sizeof(local);
      if (fd < 0 || ::connect(fd, a->ai_addr, a->ai_addrlen) != 0 ||
          ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &size) != 0) {
        const int error = errno;
        tried +=
            (tried.empty() ? "" : ", ") + numeric + ": " + std::strerror(error);
      } else {
        address = numericHost(reinterpret_cast<const sockaddr*>(&local));
      }
      if (fd >= 0) ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (!address.empty()) return address;
  RANKTEST_FAIL(
      "ranktest: no route from this host to MASTER_ADDR '" + host + "' (" +
      tried +
      "); MASTER_ADDR must be an address of rank 0's host that every host "
      "reaches");
}

// Whether `host` (MASTER_ADDR) names an address of this host: one this
// host can bind a socket to (every 127/8 address, the interfaces' own).
bool isAddressOfThisHost(const std::string& host) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  bool bound = false;
  for (const addrinfo* a = found; a != nullptr && !bound; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) continue;
    bound = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0;
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return bound;
}

// The interface that holds `address`, or "" when none does.
std::string interfaceWithAddress(const std::string& address) {
  ifaddrs* all = nullptr;
  if (::getifaddrs(&all) != 0) return "";
  std::string name;
  for (const ifaddrs* i = all; i != nullptr && name.empty(); i = i->ifa_next) {
    if (i->ifa_addr != nullptr && numericHost(i->ifa_addr) == address) {
      name = i->ifa_name;
    }
  }
  ::freeifaddrs(all);
  return name;
}

// Sets `name` unless the launcher or the user already did.
void exportIfUnset(const char* name, const std::string& value) {
  if (!value.empty()) ::setenv(name, value.c_str(), /*overwrite=*/0);
}

std::string hostName() {
  char name[256] = {};
  ::gethostname(name, sizeof(name) - 1);
  return name;
}

std::string encodeSkip(const std::optional<Skip>& skip) {
  if (!skip) return "go";
  return std::to_string(static_cast<int>(skip->code)) + ":" + skip->message;
}

std::optional<Skip> decodeSkip(const std::string& text) {
  if (text == "go") return std::nullopt;
  const std::size_t colon = text.find(':');
  return Skip{static_cast<SkipCode>(std::stoi(text.substr(0, colon))),
              text.substr(colon + 1)};
}

// How long an interrupted rank waits for the others' reports.
constexpr std::chrono::seconds kInterruptedReportWait{2};

// How long a rank waits for its responder's poll to end before it forks a
// test's process (a poll takes milliseconds unless the store is silent).
constexpr std::chrono::seconds kForkPauseLimit{1};

// What the responder's thread sets an awaited key to where the wait is over
// without the peer's value (never a value of the job's own).
constexpr char kMarkLate[] = "\x01ranktest: late";
constexpr char kMarkSilent[] = "\x01ranktest: silent";
constexpr char kMarkJobGaveUp[] = "\x01ranktest: the job gave up on a rank";
// The interrupted rank's number follows: the key may be shared, and the
// others were not interrupted.
constexpr char kMarkInterrupted[] = "\x01ranktest: interrupted in rank ";
// Set on every rank's host key by a process that found its rank claimed by
// another, the refusal following: the job cannot form.
constexpr char kMarkRankClaimedTwice[] = "\x01ranktest: claimed twice: ";

std::string toText(const std::vector<uint8_t>& bytes) {
  return std::string(bytes.begin(), bytes.end());
}

std::vector<uint8_t> toBytes(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

}  // namespace

std::unique_ptr<LaunchedJob> LaunchedJob::join(
    std::chrono::milliseconds timeout) {
  std::optional<LaunchedRank> launched = detectLauncher(&processEnvironment);
  if (!launched) return nullptr;
  const std::string address = rendezvousAddress(*launched, &processEnvironment);
  std::unique_ptr<LaunchedJob> job(new LaunchedJob(*launched, address));
  const auto [host, port] = splitHostPort(address);
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(port);
  // torchrun's static rendezvous serves its own store at MASTER_PORT and
  // tells its workers so: then every rank is a client (and the keys of each
  // attempt of the job are apart: attempt_store.h).
  options.isServer =
      launched->rank == 0 &&
      processEnvironment("TORCHELASTIC_USE_AGENT_STORE") != "True";
  options.waitWorkers = false;
  options.timeout = timeout;
  torch_compat::useClassicServer(options);
  job->gloo_host_ = localAddressToward(host, port);
  // Rank 0 serves the store on every address of its host: a MASTER_ADDR of
  // another host would leave the others knocking there until the join
  // timeout (300 s).
  if (options.isServer && !isAddressOfThisHost(host)) {
    RANKTEST_FAIL("ranktest: MASTER_ADDR '" + host +
                  "' is not an address of rank 0's "
                  "host (" +
                  hostName() + "), where rank 0 serves the job's store " +
                  "(started by " + launched->launcher +
                  "); MASTER_ADDR must be an "
                  "address of rank 0's host that every host reaches");
  }
  job->where_ = "host " + hostName() + " (" + job->gloo_host_ + "), pid " +
                std::to_string(::getpid());
  const std::string who = "rank " + std::to_string(launched->rank) + " of " +
                          std::to_string(launched->world_size) + " (" +
                          job->where_ + ")";
  const auto cannot = [&](const std::exception& error) {
    return std::runtime_error(
        "ranktest: rank " + std::to_string(launched->rank) + " of a job " +
        "started by " + launched->launcher + " cannot " +
        (options.isServer ? "serve" : "reach") + " the rendezvous store at " +
        address + ": " + messageOf(error) +
        (options.isServer
             ? " (where its port is taken: by another job at this address, "
               "or by another process of this job that has rank 0 too)"
             : ""));
  };
  // Before any thread of the store's: the sentinel is a fork. Where it
  // serves the store, this process is one more client.
  try {
    if (startRankSentinel(host, options, launched->rank, who,
                          launched->restart_count)) {
      options.isServer = false;
    } else {
      std::cerr << "[ranktest] " << who
                << " has no sentinel (this process ran threads before "
                   "joining the job): if its process is stopped, its "
                   "launcher may not end"
                << std::endl;
    }
  } catch (const std::exception& error) {
    throw cannot(error);
  }
  try {
    job->store_ =
        attemptStore(c10::make_intrusive<c10d::TCPStore>(host, options),
                     launched->restart_count);
  } catch (const std::exception& error) {
    throw cannot(error);
  }
  // Before any key of the job's is read or written.
  claimStoreForJob(*job->store_, launched->job, address);
  // A second connection, for answering where this rank is while the first
  // waits.
  c10d::TCPStoreOptions second = options;
  second.isServer = false;
  LaunchedJob* watcher = job.get();
  job->responder_ = std::make_unique<StateResponder>(
      attemptStore(c10::make_intrusive<c10d::TCPStore>(host, second),
                   launched->restart_count),
      launched->rank,
      [watcher](c10d::Store& store) { watcher->watchWaits(store); });
  job->watchdog_ = std::make_unique<StoreWatchdog>(
      *job->responder_, who, address, settings().peer_silence);
  job->claimRank();
  job->placeOnNodes(timeout);
  return job;
}

LaunchedJob::LaunchedJob(LaunchedRank launched, std::string store_address)
    : launched_(std::move(launched)),
      store_address_(std::move(store_address)),
      seen_(static_cast<std::size_t>(launched_.world_size)) {}

void LaunchedJob::claimRank() {
  const int me = launched_.rank;
  if (setFirst(*store_, keys::where(me), toBytes(where_))) return;
  // Two processes with one rank (RANK given alike to every process, a
  // launcher's mix-up) would share its keys while another rank is missing
  // for good: the second refuses, and ends every wait of the job's forming
  // with why, instead of the others waiting out the join timeout.
  const std::string refusal =
      "ranktest: rank " + std::to_string(me) + " of " +
      std::to_string(launched_.world_size) +
      " is claimed by two processes of the job: " + get(keys::where(me)) +
      ", and " + where_ +
      ". Give each process its own rank (the launcher's RANK, "
      "OMPI_COMM_WORLD_RANK, SLURM_PROCID or PMI_RANK)";
  for (int rank = 0; rank < launched_.world_size; ++rank) {
    setFirst(*store_, keys::host(rank),
             toBytes(kMarkRankClaimedTwice + refusal));
  }
  RANKTEST_FAIL(refusal);
}

void LaunchedJob::placeOnNodes(std::chrono::milliseconds timeout) {
  // A rank's address toward rank 0 names its host: ranks of one host share
  // it, ranks of different hosts cannot.
  const int me = launched_.rank;
  setFirst(*store_, keys::host(me), toBytes(gloo_host_));
  std::vector<std::string> hosts;
  hosts.reserve(static_cast<std::size_t>(launched_.world_size));
  const auto until = Clock::now() + timeout;
  for (int rank = 0; rank < launched_.world_size; ++rank) {
    Awaited host = awaitFrom(keys::host(rank), rank, until,
                             /*at_test_start=*/false, /*joining=*/true);
    if (host.how != Await::kArrived) notJoined(rank, host.how, timeout);
    if (host.value.rfind(kMarkRankClaimedTwice, 0) == 0) {
      RANKTEST_FAIL(host.value.substr(
          std::char_traits<char>::length(kMarkRankClaimedTwice)));
    }
    hosts.push_back(std::move(host.value));
  }
  layout_ = nodeLayoutOf(hosts, me);
  // The launcher knows best where it says.
  layout_.local_rank = launched_.local_rank.value_or(layout_.local_rank);
  layout_.local_world_size =
      launched_.local_world_size.value_or(layout_.local_world_size);
  layout_.node_rank = launched_.node_rank.value_or(layout_.node_rank);
  if (!layout_.blocks && me == 0) {
    std::cerr << "[ranktest] the launcher did not place the ranks as blocks "
                 "of consecutive ranks of one size per node: node subgroups "
                 "(LOCAL_WORLD_SIZE consecutive ranks) are not the nodes"
              << std::endl;
  }
  exportIfUnset("LOCAL_RANK", std::to_string(layout_.local_rank));
  exportIfUnset("LOCAL_WORLD_SIZE", std::to_string(layout_.local_world_size));
  exportIfUnset("GROUP_RANK", std::to_string(layout_.node_rank));
  exportIfUnset("GLOO_SOCKET_IFNAME", interfaceWithAddress(gloo_host_));
}

void LaunchedJob::notJoined(int rank, Await how,
                            std::chrono::milliseconds timeout) {
  const std::optional<std::string> where = published(keys::where(rank));
  const std::string peer = "rank " + std::to_string(rank) + " of " +
                           std::to_string(launched_.world_size) +
                           (where ? " (" + *where + ")" : "");
  const std::string me = "rank " + std::to_string(launched_.rank);
  std::string what;
  if (how == Await::kInterrupted) {
    what = peer + " had not joined: " + me + " was interrupted while it waited";
  } else if (how == Await::kSilent) {
    what = peer + " went silent: its heartbeat has not moved for " +
           secondsText(settings().peer_silence) +
           ", so its process is stopped or its host is cut off";
  } else {
    what = peer + " did not join within " + secondsText(timeout) + " (" + me +
           " waited for it" +
           (where ? ")"
                  : "; it never reached the job's store at " + store_address_ +
                        ": its launch failed, or its host cannot reach this "
                        "one)");
  }
  RANKTEST_FAIL("ranktest: the job did not form: " + what);
}

std::optional<std::string> LaunchedJob::published(const std::string& key) {
  if (!store_->check({key})) return std::nullopt;
  return get(key);
}

LaunchedJob* LaunchedJob::current() { return currentJob(); }

std::string LaunchedJob::describeJobFailure(const std::exception& error) const {
  return "[ranktest] rank " + std::to_string(launched_.rank) +
         " lost the launched job: " + messageOf(error) +
         "\n  the job's store is at " + store_address_ +
         "; if it stopped answering, the process serving it ended "
         "(torchrun's agent under torchrun, rank 0's sentinel otherwise): "
         "was the launcher killed?";
}

void LaunchedJob::setCurrent(std::unique_ptr<LaunchedJob> job) {
  currentJob() = job.release();
}

std::string LaunchedJob::get(const std::string& key) {
  return toText(store_->get(key));
}

SuperviseResult LaunchedJob::withoutLostRank(
    std::optional<RankReport> lost) const {
  SuperviseResult all;
  for (int rank = 0; rank < launched_.world_size; ++rank) {
    RankReport r;
    r.rank = rank;
    if (rank == *lost_rank_ && lost) {
      r = *lost;
    } else if (rank == *lost_rank_) {
      r.end = RankReport::End::kTimedOut;
      r.tail.push_back("[ranktest] rank " + std::to_string(rank) +
                       " stopped reporting in " + lost_in_ +
                       "; the job gave up on it");
    } else {
      r.end = RankReport::End::kStopped;
      r.stopped_because = "rank " + std::to_string(*lost_rank_) + " is gone";
    }
    all.ranks.push_back(r);
  }
  all.timed_out = true;
  return all;
}

SuperviseResult LaunchedJob::notStarted(const Awaited& awaited, int rank,
                                        const std::string& waited_for,
                                        const TestInstance& t) {
  const std::string test = t.fullName();
  const Await how = awaited.how;
  if (how == Await::kJobGaveUp && adoptLostRank()) return withoutLostRank();
  if (how == Await::kInterrupted || how == Await::kPeerInterrupted) {
    return interruptedBeforeTheBody(awaited, t);
  }
  return withoutLostRank(giveUpOn(rank, how, waited_for, test));
}

std::string LaunchedJob::whoWasInterrupted(const Awaited& awaited,
                                           const std::string& self) {
  return awaited.how == Await::kPeerInterrupted ? "rank " + awaited.value
                                                : self;
}

RankFailure LaunchedJob::peerInterrupted(const TestInstance& t, int rank,
                                         const std::string& when) {
  return RankFailure{t.file, t.line,
                     "rank " + std::to_string(rank) +
                         "'s run was interrupted (its launcher was signalled, "
                         "not this rank's) " +
                         when + ": this test's outcome is unknown"};
}

SuperviseResult LaunchedJob::interruptedBeforeTheBody(
    const Awaited& awaited, const TestInstance& t) const {
  SuperviseResult all;
  all.interrupted_by = interruptSignal();
  const std::string interrupted = whoWasInterrupted(awaited, "this run");
  for (int rank = 0; rank < launched_.world_size; ++rank) {
    RankReport r;
    r.rank = rank;
    r.end = RankReport::End::kStopped;
    if (awaited.how == Await::kPeerInterrupted &&
        awaited.value == std::to_string(rank)) {
      r.failures.push_back(
          peerInterrupted(t, rank, "before the test's body ran"));
    }
    r.stopped_because =
        interrupted + " was interrupted before the test's body ran";
    all.ranks.push_back(r);
  }
  return all;
}

LaunchedJob::Awaited LaunchedJob::awaitFrom(const std::string& key, int rank,
                                            Clock::time_point until,
                                            bool at_test_start, bool joining,
                                            bool own_key) {
  {
    const std::lock_guard<std::mutex> lock(watch_mutex_);
    watched_ = Watched{key, rank, until, at_test_start, joining, own_key};
  }
  // The responder's thread ends this wait, where the peer does not, by
  // setting the key to a mark of why (watchWaits()).
  store_->wait({key}, std::chrono::hours(24));
  {
    const std::lock_guard<std::mutex> lock(watch_mutex_);
    watched_.reset();
  }
  std::string value = get(key);
  if (value == kMarkLate) return {Await::kLate, ""};
  if (value == kMarkSilent) return {Await::kSilent, ""};
  if (value == kMarkJobGaveUp) return {Await::kJobGaveUp, ""};
  if (value.rfind(kMarkInterrupted, 0) == 0) {
    // Rank 0's: this rank's own, or rank 0's while this rank, not
    // signalled, goes on.
    if (interruptSignal() != 0) return {Await::kInterrupted, ""};
    return {Await::kPeerInterrupted,
            value.substr(std::char_traits<char>::length(kMarkInterrupted))};
  }
  return {Await::kArrived, std::move(value)};
}

LaunchedJob::Seen LaunchedJob::noteBeat(c10d::Store& store, int rank) {
  const std::int64_t beat = StateResponder::beat(store, rank);
  // After the read: the count may have moved just before it.
  const auto now = Clock::now();
  const std::lock_guard<std::mutex> lock(watch_mutex_);
  Seen& seen = seen_[static_cast<std::size_t>(rank)];
  if (beat != seen.beat) seen = Seen{beat, now};
  return seen;
}

void LaunchedJob::notePeerBeats(c10d::Store& store) {
  // A store call each, so a few per poll, whatever the job's size.
  constexpr int kPeersPerPoll = 4;
  const int world = launched_.world_size;
  for (int i = 0; i < std::min(kPeersPerPoll, world - 1); ++i) {
    last_polled_ = (last_polled_ + 1) % world;
    if (last_polled_ == launched_.rank)
      last_polled_ = (last_polled_ + 1) % world;
    noteBeat(store, last_polled_);
  }
}

void LaunchedJob::watchWaits(c10d::Store& store) {
  if (supervising_) notePeerBeats(store);
  std::optional<Watched> w;
  {
    const std::lock_guard<std::mutex> lock(watch_mutex_);
    w = watched_;
  }
  if (!w) return;
  // The keys waited on in a test are shared, and the launcher of an
  // interrupted rank (another host's) may not signal the others: an
  // interrupted rank but rank 0 marks none, not even late, and its wait ends
  // with its run, from the interrupt's watchdog within kInterruptGrace
  // (interrupted_run.h). Rank 0 reports the interrupted test, so its wait
  // ends at once; so does a wait on a rank's own key (the exit code).
  if (interruptSignal() != 0 && launched_.rank != 0 && !w->own_key) return;
  std::string mark;
  const Seen seen = noteBeat(store, w->rank);
  const auto now = Clock::now();
  const bool never_beat = w->joining && seen.beat == 0;
  if (!never_beat && now - seen.since >= settings().peer_silence) {
    mark = kMarkSilent;
  }
  if (now >= w->until) mark = kMarkLate;
  if (w->at_test_start && store.check({keys::lost()})) mark = kMarkJobGaveUp;
  // The run ends 3 s after the signal; so does the job, whose end the
  // others learn from rank 0.
  if (interruptSignal() != 0) {
    mark = kMarkInterrupted + std::to_string(launched_.rank);
  }
  if (mark.empty()) return;
  // Only where the key is still unset: a value that came first stands, and
  // one that comes after the mark does not replace it (first_value.h).
  setFirst(store, w->key, toBytes(mark));
  const std::lock_guard<std::mutex> lock(watch_mutex_);
  if (watched_ && watched_->key == w->key) watched_.reset();
}

RankReport LaunchedJob::giveUpOn(int rank, Await how,
                                 const std::string& waited_for,
                                 const std::string& test) {
  RankReport missing;
  missing.rank = rank;
  missing.end = RankReport::End::kTimedOut;
  const std::string last =
      published(keys::phase(rank)).value_or("none published");
  const std::string where =
      published(keys::where(rank)).value_or("where unknown");
  const std::string who =
      "[ranktest] rank " + std::to_string(rank) + " (" + where + ")";
  const std::string later = ". Later tests fail at once";
  if (how == Await::kSilent) {
    missing.tail.push_back(
        who + " went silent while rank " + std::to_string(launched_.rank) +
        " waited for " + waited_for + ": its heartbeat has not moved for " +
        secondsText(settings().peer_silence) +
        ", so its process is stopped or its host is cut off; its last "
        "phase: " +
        last + later);
  } else {
    const std::optional<std::string> answer =
        StateResponder::ask(*store_, rank, 3s);
    missing.tail.push_back(
        who + " did not send " + waited_for +
        " by the deadline; its last phase: " + last +
        (answer ? ". Asked where it is, it answered: " + *answer
                : ". Asked where it is, it did not answer within 3 s: its "
                  "process is stopped or its host is gone") +
        later);
  }
  given_up_.emplace(rank, "rank " + std::to_string(launched_.rank) +
                              " waited in vain for " + waited_for + " in " +
                              test);
  if (!lost_rank_) {
    lost_rank_ = rank;
    lost_in_ = test;
    store_->set(keys::lost(), toBytes(std::to_string(rank) + "\n" + test));
  }
  // Only rank 0 prints test reports: the others say it on their own host.
  if (launched_.rank != 0) std::cerr << missing.tail.front() << std::endl;
  return missing;
}

bool LaunchedJob::adoptLostRank() {
  if (lost_rank_) return true;
  const std::optional<std::string> lost = published(keys::lost());
  if (!lost) return false;
  const std::size_t newline = lost->find('\n');
  lost_rank_ = std::stoi(lost->substr(0, newline));
  lost_in_ = lost->substr(newline + 1);
  return true;
}

// One distributed test as this rank takes part in it: what run()'s steps
// share.
struct LaunchedJob::Round {
  const TestInstance& t;
  SuperviseOptions options;
  int sequence;
  Clock::time_point start;
  std::chrono::milliseconds timeout;
  // When a peer's word is due, counted from now: the test's deadline, the
  // stack grace and the report grace.
  Clock::time_point dueFromNow() const {
    return Clock::now() + timeout + options.stack_grace + kReportGrace;
  }
  std::string keyOf(const char* what, int rank) const {
    return keys::testOfRank(sequence, what, rank);
  }
};

void LaunchedJob::phase(const Round& round, const std::string& what) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      Clock::now() - round.start)
                      .count();
  const std::string text =
      what + " (" + std::to_string(ms) + " ms into " + round.t.fullName() + ")";
  store_->set(keys::phase(launched_.rank), toBytes(text));
  responder_->setPhase(text);
}

SuperviseResult LaunchedJob::run(const TestInstance& t,
                                 SuperviseOptions options,
                                 const std::optional<Skip>& local_skip) {
  const int world = launched_.world_size;
  if (t.world_size != world) {
    RANKTEST_FAIL_STATE("ranktest: " + t.fullName() + " runs at " +
                        std::to_string(t.world_size) +
                        " ranks, but the launcher started " +
                        std::to_string(world));
  }
  if (disagreement_) RANKTEST_FAIL(*disagreement_);
  if (adoptLostRank()) return withoutLostRank();
  // Under RANKTEST_DEBUG_RANK no rank here sees the stopped rank's own
  // word that it waits for a debugger (its supervisor is on its host):
  // every rank lifts its deadline and waits as long as it takes.
  const std::chrono::milliseconds timeout = t.groupTimeout();
  options.timeout = timeout;
  Round round{t, std::move(options), sequence_++, Clock::now(), timeout};
  if (auto not_started = agreeOnTheTest(round)) return *not_started;
  if (auto skipped = agreeOnSkips(round, local_skip)) return *skipped;
  const auto reports_due = round.dueFromNow();
  const auto agreed = Clock::now();
  SuperviseResult all;
  const RankReport mine = superviseTheBody(round, all);
  phase(round, "waiting for the other ranks' reports");
  const auto reported = Clock::now();
  gatherReports(round, mine, reports_due, all);
  all.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      Clock::now() - round.start);
  responder_->setPhase("between distributed tests, after " + t.fullName());
  if (settings().verbose) {
    const auto ms = [](Clock::duration d) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
    };
    std::cerr << "[ranktest] rank " << launched_.rank << ", " << t.fullName()
              << ": agreed to start in " << ms(agreed - round.start)
              << " ms, body and report " << ms(reported - agreed)
              << " ms, every report in " << ms(Clock::now() - reported) << " ms"
              << std::endl;
  }
  return all;
}

std::optional<SuperviseResult> LaunchedJob::agreeOnTheTest(Round& round) {
  const int me = launched_.rank;
  const TestInstance& t = round.t;
  // Every rank must be at the same test: one --gtest_filter, one binary.
  // Rank 0 may run plain tests first, for as long as they take: it is
  // waited for while its heartbeat moves. The others come from the test
  // before, which they ended together.
  setFirst(*store_, keys::testName(round.sequence, me), toBytes(t.fullName()));
  // Counted from when rank 0 came, however long it ran plain tests.
  auto agreement_due = round.dueFromNow();
  std::vector<std::string> tests;
  tests.reserve(static_cast<std::size_t>(launched_.world_size));
  for (int rank = 0; rank < launched_.world_size; ++rank) {
    if (rank == me) {
      tests.push_back(t.fullName());
      continue;
    }
    const Awaited test = awaitFrom(
        keys::testName(round.sequence, rank), rank,
        rank == 0 ? Clock::now() + std::chrono::hours(24) : agreement_due,
        /*at_test_start=*/true);
    if (test.how != Await::kArrived) {
      return notStarted(test, rank, "the start of its next test", t);
    }
    tests.push_back(test.value);
    if (rank == 0) agreement_due = round.dueFromNow();
  }
  disagreement_ = disagreementOn(sequence_, tests);
  if (disagreement_) {
    store_->set(keys::disagreement(), toBytes(*disagreement_));
    RANKTEST_FAIL(*disagreement_);
  }
  return std::nullopt;
}

std::optional<SuperviseResult> LaunchedJob::agreeOnSkips(
    Round& round, const std::optional<Skip>& local_skip) {
  const int world = launched_.world_size;
  // Skips are agreed on before any body starts (hosts differ, e.g. in GPUs).
  phase(round, "agreeing on skips");
  setFirst(*store_, round.keyOf("skip", launched_.rank),
           toBytes(encodeSkip(local_skip)));
  std::vector<std::optional<Skip>> skips;
  skips.reserve(static_cast<std::size_t>(world));
  const auto agreement_due = round.dueFromNow();
  for (int rank = 0; rank < world; ++rank) {
    const Awaited skip = awaitFrom(round.keyOf("skip", rank), rank,
                                   agreement_due, /*at_test_start=*/true);
    if (skip.how != Await::kArrived) {
      return notStarted(skip, rank, "its decision on skipping", round.t);
    }
    skips.push_back(decodeSkip(skip.value));
  }
  const auto skipper = std::find_if(
      skips.begin(), skips.end(), [](const auto& s) { return s.has_value(); });
  if (skipper == skips.end()) return std::nullopt;
  SuperviseResult all;
  for (int rank = 0; rank < world; ++rank) {
    RankReport r;
    r.rank = rank;
    if (skips[rank]) {
      r.skip = skips[rank];
      r.code = static_cast<int>(skips[rank]->code);
    } else {
      r.end = RankReport::End::kStopped;
      r.stopped_because =
          "rank " + std::to_string(skipper - skips.begin()) + " skipped";
    }
    all.ranks.push_back(r);
  }
  return all;
}

RankReport LaunchedJob::superviseTheBody(Round& round, SuperviseResult& all) {
  const int me = launched_.rank;
  const TestInstance& t = round.t;
  RankLaunch launch;
  launch.rank = me;
  launch.world_size = launched_.world_size;
  launch.local_rank = layout_.local_rank;
  launch.local_world_size = layout_.local_world_size;
  launch.node_rank = layout_.node_rank;
  launch.backend = t.backend;
  launch.store = "tcp:" + store_address_;
  // The body connects anew: its group's keys are this attempt's too.
  launch.store_prefix = attemptKeyPrefix(launched_.restart_count) +
                        keys::testGroup(round.sequence);
  launch.gloo_host = gloo_host_;
  launch.timeout = round.timeout;
  launch.debug_wait = settings().debug_rank == me;
  launch.test = t.fullName();
  std::unique_ptr<RankProcess> child;
  {
    const auto paused = responder_->pauseForFork(kForkPauseLimit);
    child = RankProcess::start(launch, t.options.start_method, -1, false);
  }
  phase(round, "supervising its body in pid " + std::to_string(child->pid()));
  const std::string abort_key = keys::testAbort(round.sequence);
  round.options.stop_check = [&] { return published(abort_key); };
  supervising_ = true;
  const SuperviseResult local = supervise({child.get()}, round.options);
  supervising_ = false;
  round.options.stop_check = nullptr;  // it refers to abort_key
  RankReport report = local.ranks.front();
  report.rank = me;
  report.where = where_;
  // Rank 0 reports its own interrupt as such; the others' reach it as a
  // failure, so that a rank not interrupted itself does not pass the test.
  if (local.interrupted_by != 0 && me != 0) {
    report.failures.push_back(
        RankFailure{t.file, t.line,
                    "this rank's run was interrupted by " +
                        describeSignal(local.interrupted_by) +
                        " while the test's body ran"});
  }
  if (report.failed() || local.interrupted_by != 0) {
    store_->set(abort_key,
                toBytes("rank " + std::to_string(me) +
                        (report.failed() ? " failed" : " was interrupted")));
  }
  setFirst(*store_, round.keyOf("report", me), toBytes(encodeReport(report)));
  all.timed_out = local.timed_out;
  all.interrupted_by = local.interrupted_by;
  return report;
}

void LaunchedJob::gatherReports(const Round& round, const RankReport& mine,
                                Clock::time_point reports_due,
                                SuperviseResult& all) {
  const TestInstance& t = round.t;
  // Interrupted, the run ends 3 s after the signal (interrupted_run.h):
  // the others' reports are taken as they come within 2 s.
  const auto interrupt_due = Clock::now() + kInterruptedReportWait;
  for (int rank = 0; rank < launched_.world_size; ++rank) {
    if (rank == launched_.rank) {
      all.ranks.push_back(mine);
      continue;
    }
    const bool interrupted = all.interrupted_by != 0;
    const Awaited sent = awaitFrom(
        round.keyOf("report", rank), rank,
        interrupted ? std::min(reports_due, interrupt_due) : reports_due);
    if (sent.how == Await::kArrived) {
      all.ranks.push_back(decodeReport(sent.value));
    } else if (interrupted || sent.how == Await::kInterrupted ||
               sent.how == Await::kPeerInterrupted) {
      all.interrupted_by = interruptSignal();
      RankReport missing;
      missing.rank = rank;
      missing.end = RankReport::End::kStopped;
      missing.stopped_because = whoWasInterrupted(sent, "this run") +
                                " was interrupted before its report came";
      if (sent.how == Await::kPeerInterrupted) {
        missing.failures.push_back(peerInterrupted(
            t, std::stoi(sent.value),
            "before rank " + std::to_string(rank) + "'s report came"));
      }
      all.ranks.push_back(missing);
    } else {
      all.ranks.push_back(giveUpOn(rank, sent.how, "its report", t.fullName()));
    }
    if (all.ranks.back().end == RankReport::End::kTimedOut) {
      all.timed_out = true;
    }
  }
}

int LaunchedJob::finish(int exit_code) {
  if (finished_) return exit_code != 0 ? exit_code : *finished_;
  try {
    finished_ = agreeOnTheEnd(exit_code);
  } catch (const std::exception& error) {
    end_failures_ +=
        (end_failures_.empty() ? "" : "\n") + describeJobFailure(error);
    finished_ = exit_code != 0 ? exit_code : 1;
  }
  watchdog_->stop();
  responder_->stop();
  return *finished_;
}

int LaunchedJob::agreeOnTheEnd(int exit_code) {
  const int me = launched_.rank;
  const auto endFailure = [this](const std::string& line) {
    end_failures_ += (end_failures_.empty() ? "" : "\n") + line;
  };
  // The job's exit code, a key for each rank: one that an interrupt ends
  // the wait for marks its own.
  const auto exitCodeFor = &keys::exitCode;
  const auto testsOver = &keys::testsOver;
  const auto done = &keys::done;
  responder_->setPhase("finishing the run");
  // For a rank still at a test: this rank's run has ended.
  const auto endOfTests = [&] {
    setFirst(*store_, keys::testName(sequence_, me), toBytes(kNoMoreTests));
  };
  int job_code = exit_code;
  if (me != 0) {
    try {
      endOfTests();
      setFirst(*store_, testsOver(me), toBytes("1"));
      // Rank 0 may still run plain tests, for as long as they take; if it
      // dies, so may its store (mpirun's).
      const Awaited code =
          lost_rank_ == 0
              ? Awaited{Await::kSilent, ""}
              : awaitFrom(exitCodeFor(me), 0,
                          Clock::now() + std::chrono::hours(24),
                          /*at_test_start=*/false, /*joining=*/false,
                          /*own_key=*/true);
      const Await how = code.how;
      if (how == Await::kArrived) {
        const int rank0 = std::stoi(code.value);
        if (job_code == 0) job_code = rank0;
      } else {
        if (lost_rank_ != 0 && how != Await::kInterrupted) {
          giveUpOn(0, how, "the job's exit code", "the end of the run");
        }
        if (job_code == 0) job_code = 1;
      }
      setFirst(*store_, done(me), toBytes("1"));
    } catch (const std::exception& error) {
      std::cerr << "[ranktest] rank " << me
                << " got no exit code from rank 0: " << error.what()
                << std::endl;
      if (job_code == 0) job_code = 1;
    }
  } else {
    endOfTests();
    // Waits up to 30 s for each rank not given up on to set key(rank);
    // false where this rank was interrupted.
    const auto hearFromEveryRank = [&](const auto& key,
                                       const std::string& what) {
      const auto until = Clock::now() + 30s;
      for (int rank = 1; rank < launched_.world_size; ++rank) {
        if (given_up_.count(rank) != 0) continue;
        const Await how = awaitFrom(key(rank), rank, until).how;
        if (how == Await::kInterrupted) return false;
        if (how != Await::kArrived) {
          // After the last test: no test's report carries it.
          endFailure(
              giveUpOn(rank, how, what, "the end of the run").tail.front());
          if (job_code == 0) job_code = 1;
        }
      }
      return true;
    };
    // Before the exit code: a rank with tests left finds that this rank has
    // none, and every rank's code must say so.
    if (hearFromEveryRank(testsOver, "word that its tests are over")) {
      // Found by a rank still at a test after this rank's run had ended:
      // nobody has reported it here.
      const std::optional<std::string> found = published(keys::disagreement());
      if (found && !disagreement_) {
        endFailure("[ranktest] " + *found);
        if (job_code == 0) job_code = 1;
      }
    }
    for (int rank = 1; rank < launched_.world_size; ++rank) {
      setFirst(*store_, exitCodeFor(rank), toBytes(std::to_string(job_code)));
    }
    // The store may live in this process (mpirun's): wait for the others to
    // read their last reports and the exit code.
    hearFromEveryRank(done, "word that it finished");
  }
  // A rank given up on may be stopped, and its launcher waits for it.
  const auto ended_due = Clock::now() + 3s;
  for (const auto& [rank, reason] : given_up_) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        ended_due - Clock::now());
    endGivenUpRank(*store_, rank, reason, std::max(left, 1ms));
  }
  return job_code;
}

}  // namespace ranktest::internal
