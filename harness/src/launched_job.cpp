#include "ranktest/internal/launched_job.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <thread>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "ranktest/internal/rank_process.h"
#include "ranktest/internal/report_codec.h"

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
  try {
    job->store_ = c10::make_intrusive<c10d::TCPStore>(host, options);
  } catch (const std::exception& error) {
    throw std::runtime_error(
        "ranktest: rank " + std::to_string(launched->rank) + " of a job " +
        "started by " + launched->launcher + " cannot " +
        (launched->rank == 0 ? "serve" : "reach") +
        " the rendezvous store at " + address + ": " + error.what());
  }
  job->gloo_host_ = localAddressToward(host, port);
  return job;
}

LaunchedJob::LaunchedJob(LaunchedRank launched, std::string store_address)
    : launched_(std::move(launched)),
      store_address_(std::move(store_address)),
      where_("host " + hostName() + ", pid " + std::to_string(::getpid())) {}

LaunchedJob* LaunchedJob::current() { return currentJob(); }

void LaunchedJob::setCurrent(std::unique_ptr<LaunchedJob> job) {
  currentJob() = job.release();
}

std::string LaunchedJob::get(const std::string& key) {
  return toText(store_->get(key));
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
  const std::string key = "ranktest/" + std::to_string(sequence_++) + "/";
  const auto mine = [&](const std::string& what) {
    return key + what + "/" + std::to_string(me);
  };
  const auto of = [&](const std::string& what, int rank) {
    return key + what + "/" + std::to_string(rank);
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
  launch.backend = t.backend;
  launch.store = "tcp:" + store_address_;
  launch.store_prefix = key + "group/";
  launch.gloo_host = gloo_host_;
  launch.timeout = t.timeout();
  launch.test = t.fullName();
  const std::unique_ptr<RankProcess> child =
      RankProcess::start(launch, t.options.start_method, -1, false);
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
      missing.tail.push_back("[ranktest] rank " + std::to_string(rank) +
                             " sent no report by the deadline: its process, "
                             "or its host, is gone or stuck");
      all.ranks.push_back(missing);
    }
    if (all.ranks.back().end == RankReport::End::kTimedOut) {
      all.timed_out = true;
    }
  }
  all.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      Clock::now() - start);
  return all;
}

void LaunchedJob::finish() {
  const std::string done = "ranktest/done";
  store_->add(done, 1);
  if (launched_.rank != 0) return;
  // The store lives in this process: wait (bounded) for the others to read
  // their last reports.
  const auto until = Clock::now() + 30s;
  while (store_->add(done, 0) < launched_.world_size && Clock::now() < until) {
    std::this_thread::sleep_for(20ms);
  }
}

}  // namespace ranktest::internal
