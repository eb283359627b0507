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
#include "job/job_values.h"
#include "job/liveness/sentinel.h"
#include "job/local_address.h"
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

// Sets `name` unless the launcher or the user already did.
void exportIfUnset(const char* name, const std::string& value) {
  if (!value.empty()) ::setenv(name, value.c_str(), /*overwrite=*/0);
}

}  // namespace

std::unique_ptr<LaunchedJob> LaunchedJob::join(
    std::chrono::milliseconds timeout) {
  std::optional<LaunchedRank> launched = detectLauncher(&processEnvironment);
  if (!launched) return nullptr;
  const std::string address = rendezvousAddress(*launched, &processEnvironment);
  std::unique_ptr<LaunchedJob> job(new LaunchedJob(*launched, address));
  const auto [host, port] = splitHostPort(address);
  // torchrun's static rendezvous serves its own store at MASTER_PORT and
  // tells its workers so: then every rank is a client (and the keys of each
  // attempt of the job are apart: attempt_store.h).
  const bool serve =
      launched->rank == 0 &&
      processEnvironment("TORCHELASTIC_USE_AGENT_STORE") != "True";
  job->gloo_host_ = localAddressToward(host, port);
  // Rank 0 serves the store on every address of its host: a MASTER_ADDR of
  // another host would leave the others knocking there until the join
  // timeout (300 s).
  if (serve && !isAddressOfThisHost(host)) {
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
  job->connect(host, port, timeout, serve);
  job->claimRank();
  job->placeOnNodes(timeout);
  return job;
}

void LaunchedJob::connect(const std::string& host, int port,
                          std::chrono::milliseconds timeout, bool serve) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(port);
  options.isServer = serve;
  options.waitWorkers = false;
  options.timeout = timeout;
  torch_compat::useClassicServer(options);
  const std::string who = "rank " + std::to_string(launched_.rank) + " of " +
                          std::to_string(launched_.world_size) + " (" + where_ +
                          ")";
  // Before any thread of the store's: the sentinel is a fork. Where it
  // serves the store, this process is one more client.
  try {
    if (startRankSentinel(host, options, launched_.rank, who,
                          launched_.restart_count)) {
      options.isServer = false;
    } else {
      std::cerr << "[ranktest] " << who
                << " has no sentinel (this process ran threads before "
                   "joining the job): if its process is stopped, its "
                   "launcher may not end"
                << std::endl;
    }
    store_ = attemptStore(c10::make_intrusive<c10d::TCPStore>(host, options),
                          launched_.restart_count);
  } catch (const std::exception& error) {
    RANKTEST_FAIL(
        "ranktest: rank ", launched_.rank, " of a job started by ",
        launched_.launcher, " cannot ", serve ? "serve" : "reach",
        " the rendezvous store at ", store_address_, ": ", messageOf(error),
        serve ? " (where its port is taken: by another job at this address, "
                "or by another process of this job that has rank 0 too)"
              : "");
  }
  // Before any key of the job's is read or written.
  claimStoreForJob(*store_, launched_.job, store_address_);
  // A second connection, for answering where this rank is while the first
  // waits.
  options.isServer = false;
  heartbeat_ = std::make_unique<HeartbeatThread>(
      attemptStore(c10::make_intrusive<c10d::TCPStore>(host, options),
                   launched_.restart_count),
      launched_.rank, [this](c10d::Store& store) { watchWaits(store); });
  silence_watch_ = std::make_unique<StoreSilenceWatch>(
      *heartbeat_, who, store_address_, settings().peer_silence);
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

std::chrono::milliseconds LaunchedJob::formingLimit() {
  return settings().scaled(settings().default_timeout * 5);
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

}  // namespace ranktest::internal
