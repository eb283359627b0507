#include "ranktest/internal/launched_job.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <thread>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>
#include <vector>

#include "ranktest/internal/rank_process.h"
#include "ranktest/internal/report_codec.h"
#include "ranktest/settings.h"
#include "torch_compat/tcp_store.h"

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

// The address of this host's interface toward `host`: the one its peers
// reach it at. A UDP connect sends nothing; it only picks the route.
std::string localAddressToward(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints,
                    &found) != 0 ||
      found == nullptr) {
    throw std::runtime_error("ranktest: cannot resolve MASTER_ADDR '" + host +
                             "'");
  }
  std::string address = "127.0.0.1";
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  sockaddr_in local{};
  socklen_t size = sizeof(local);
  if (fd >= 0 && ::connect(fd, found->ai_addr, found->ai_addrlen) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&local), &size) == 0) {
    char text[INET_ADDRSTRLEN] = {};
    if (::inet_ntop(AF_INET, &local.sin_addr, text, sizeof(text)) != nullptr) {
      address = text;
    }
  }
  if (fd >= 0) ::close(fd);
  ::freeaddrinfo(found);
  return address;
}

// The interface that holds `address`, or "" when none does.
std::string interfaceWithAddress(const std::string& address) {
  ifaddrs* all = nullptr;
  if (::getifaddrs(&all) != 0) return "";
  std::string name;
  for (const ifaddrs* i = all; i != nullptr && name.empty(); i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    char text[INET_ADDRSTRLEN] = {};
    const auto* in = reinterpret_cast<const sockaddr_in*>(i->ifa_addr);
    if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text)) != nullptr &&
        address == text) {
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
  const std::size_t colon = address.rfind(':');
  const std::string host = address.substr(0, colon);
  const int port = std::stoi(address.substr(colon + 1));
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(port);
  // torchrun's static rendezvous serves its own store at MASTER_PORT and
  // tells its workers so: then every rank is a client (keys are prefixed).
  options.isServer =
      launched->rank == 0 &&
      processEnvironment("TORCHELASTIC_USE_AGENT_STORE") != "True";
  options.waitWorkers = false;
  options.timeout = timeout;
  torch_compat::useClassicServer(options);
  try {
    job->store_ = c10::make_intrusive<c10d::TCPStore>(host, options);
  } catch (const std::exception& error) {
    throw std::runtime_error(
        "ranktest: rank " + std::to_string(launched->rank) + " of a job " +
        "started by " + launched->launcher + " cannot " +
        (launched->rank == 0 ? "serve" : "reach") +
        " the rendezvous store at " + address + ": " + error.what());
  }
  // A second connection, for answering where this rank is while the first
  // waits.
  c10d::TCPStoreOptions second = options;
  second.isServer = false;
  job->responder_ = std::make_unique<StateResponder>(
      c10::make_intrusive<c10d::TCPStore>(host, second), launched->rank);
  job->gloo_host_ = localAddressToward(host, port);
  job->where_ = "host " + hostName() + " (" + job->gloo_host_ + "), pid " +
                std::to_string(::getpid());
  job->placeOnNodes();
  return job;
}

LaunchedJob::LaunchedJob(LaunchedRank launched, std::string store_address)
    : launched_(std::move(launched)),
      store_address_(std::move(store_address)) {}

void LaunchedJob::placeOnNodes() {
  // A rank's address toward rank 0 names its host: ranks of one host share
  // it, ranks of different hosts cannot.
  const int me = launched_.rank;
  store_->set("ranktest/host/" + std::to_string(me), toBytes(gloo_host_));
  std::vector<std::string> hosts;
  hosts.reserve(static_cast<std::size_t>(launched_.world_size));
  for (int rank = 0; rank < launched_.world_size; ++rank) {
    hosts.push_back(get("ranktest/host/" + std::to_string(rank)));
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

LaunchedJob* LaunchedJob::current() { return currentJob(); }

void LaunchedJob::setCurrent(std::unique_ptr<LaunchedJob> job) {
  currentJob() = job.release();
}

std::string LaunchedJob::get(const std::string& key) {
  return toText(store_->get(key));
}

SuperviseResult LaunchedJob::withoutLostRank() const {
  SuperviseResult all;
  for (int rank = 0; rank < launched_.world_size; ++rank) {
    RankReport r;
    r.rank = rank;
    if (rank == *lost_rank_) {
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

SuperviseResult LaunchedJob::run(const TestInstance& t,
                                 SuperviseOptions options,
                                 const std::optional<Skip>& local_skip) {
  const auto start = Clock::now();
  const int me = launched_.rank;
  const int world = launched_.world_size;
  if (t.world_size != world) {
    throw std::logic_error("ranktest: " + t.fullName() + " runs at " +
                           std::to_string(t.world_size) +
                           " ranks, but the launcher started " +
                           std::to_string(world));
  }
  if (lost_rank_) return withoutLostRank();
  const std::string key = "ranktest/" + std::to_string(sequence_++) + "/";
  const auto mine = [&](const std::string& what) {
    return key + what + "/" + std::to_string(me);
  };
  const auto of = [&](const std::string& what, int rank) {
    return key + what + "/" + std::to_string(rank);
  };
  // What this rank last did, for a peer that waits for it in vain.
  const auto phase = [&](const std::string& what) {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        Clock::now() - start)
                        .count();
    const std::string text =
        what + " (" + std::to_string(ms) + " ms into " + t.fullName() + ")";
    store_->set(mine("phase"), toBytes(text));
    responder_->setPhase(text);
  };

  // Every rank must be at the same test: one --gtest_filter, one binary.
  store_->set(mine("name"), toBytes(t.fullName()));
  const std::string first = get(of("name", 0));
  if (first != t.fullName()) {
    throw std::runtime_error(
        "ranktest: rank " + std::to_string(me) + " runs " + t.fullName() +
        " as its distributed test #" + std::to_string(sequence_) +
        ", but rank 0 runs " + first +
        ": start every rank with the same binary and --gtest_filter");
  }

  // Skips are agreed on before any body starts (hosts differ, e.g. in GPUs).
  phase("agreeing on skips");
  store_->set(mine("skip"), toBytes(encodeSkip(local_skip)));
  SuperviseResult all;
  std::vector<std::optional<Skip>> skips;
  skips.reserve(static_cast<std::size_t>(world));
  for (int rank = 0; rank < world; ++rank) {
    skips.push_back(decodeSkip(get(of("skip", rank))));
  }
  const auto skipper = std::find_if(
      skips.begin(), skips.end(), [](const auto& s) { return s.has_value(); });
  if (skipper != skips.end()) {
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
  const auto reports_due =
      Clock::now() + t.timeout() + options.stack_grace + 10s;

  RankLaunch launch;
  launch.rank = me;
  launch.world_size = world;
  launch.local_rank = layout_.local_rank;
  launch.local_world_size = layout_.local_world_size;
  launch.node_rank = layout_.node_rank;
  launch.backend = t.backend;
  launch.store = "tcp:" + store_address_;
  launch.store_prefix = key + "group/";
  launch.gloo_host = gloo_host_;
  launch.timeout = t.timeout();
  launch.test = t.fullName();
  const std::unique_ptr<RankProcess> child =
      RankProcess::start(launch, t.options.start_method, -1, false);
  phase("supervising its body in pid " + std::to_string(child->pid()));
  const auto agreed = Clock::now();
  const std::string abort_key = key + "abort";
  options.stop_check = [&]() -> std::optional<std::string> {
    if (!store_->check({abort_key})) return std::nullopt;
    return get(abort_key);
  };
  const SuperviseResult local = supervise({child.get()}, options);
  RankReport report = local.ranks.front();
  report.rank = me;
  report.where = where_;
  if (report.failed() || local.interrupted_by != 0) {
    store_->set(abort_key,
                toBytes("rank " + std::to_string(me) +
                        (report.failed() ? " failed" : " was interrupted")));
  }
  store_->set(mine("report"), toBytes(encodeReport(report)));
  phase("waiting for the other ranks' reports");
  const auto reported = Clock::now();

  all.timed_out = local.timed_out;
  all.interrupted_by = local.interrupted_by;
  for (int rank = 0; rank < world; ++rank) {
    if (rank == me) {
      all.ranks.push_back(report);
      continue;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        reports_due - Clock::now());
    try {
      store_->wait({of("report", rank)}, std::max(left, 1ms));
      all.ranks.push_back(decodeReport(get(of("report", rank))));
    } catch (const c10::Error&) {
      RankReport missing;
      missing.rank = rank;
      missing.end = RankReport::End::kTimedOut;
      const std::string last = store_->check({of("phase", rank)})
                                   ? get(of("phase", rank))
                                   : "none published";
      const std::optional<std::string> answer =
          StateResponder::ask(*store_, rank, 3s);
      missing.tail.push_back(
          "[ranktest] rank " + std::to_string(rank) + " (" +
          get("ranktest/host/" + std::to_string(rank)) +
          ") sent no report by the deadline; its last phase: " + last +
          (answer ? ". Asked where it is, it answered: " + *answer
                  : ". Asked where it is, it did not answer within 3 s: its "
                    "process is stopped or its host is gone") +
          ". Later tests fail at once");
      all.ranks.push_back(missing);
      if (!lost_rank_) {
        lost_rank_ = rank;
        lost_in_ = t.fullName();
      }
    }
    if (all.ranks.back().end == RankReport::End::kTimedOut) {
      all.timed_out = true;
    }
  }
  all.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      Clock::now() - start);
  responder_->setPhase("between distributed tests, after " + t.fullName());
  if (settings().verbose) {
    const auto ms = [](Clock::duration d) {
      return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
    };
    std::cerr << "[ranktest] rank " << me << ", " << t.fullName()
              << ": agreed to start in " << ms(agreed - start)
              << " ms, body and report " << ms(reported - agreed)
              << " ms, every report in " << ms(Clock::now() - reported) << " ms"
              << std::endl;
  }
  return all;
}

int LaunchedJob::finish(int exit_code) {
  responder_->stop();
  const std::string result = "ranktest/exit_code";
  const std::string done = "ranktest/done";
  if (launched_.rank != 0) {
    int job_code = exit_code;
    try {
      // Rank 0 may still run plain tests; if it dies, so does its store. A
      // rank 0 that stopped answering was given up on already. A day, not
      // c10d::Store::kNoTimeout: libtorch 2.x's TCPStore takes that 0 as
      // "return at once".
      store_->wait({result}, lost_rank_ == 0 ? std::chrono::milliseconds(1)
                                             : std::chrono::hours(24));
      const int rank0 = std::stoi(get(result));
      if (job_code == 0) job_code = rank0;
    } catch (const std::exception& error) {
      std::cerr << "[ranktest] rank " << launched_.rank
                << " got no exit code from rank 0: " << error.what()
                << std::endl;
      if (job_code == 0) job_code = 1;
    }
    try {
      store_->add(done, 1);
    } catch (const std::exception&) {
      // Rank 0 and its store are gone already: nobody waits for this.
    }
    return job_code;
  }
  store_->set(result, toBytes(std::to_string(exit_code)));
  // The store lives in this process: wait (bounded) for the others to read
  // their last reports and the exit code.
  const auto until = Clock::now() + (lost_rank_ ? 0s : 30s);
  while (store_->add(done, 0) < launched_.world_size - 1 &&
         Clock::now() < until) {
    std::this_thread::sleep_for(20ms);
  }
  return exit_code;
}

}  // namespace ranktest::internal
