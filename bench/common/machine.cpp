#include "bench_common/machine.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>

namespace bench_common {
namespace {

std::int64_t nowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string readFirstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

Machine describeMachine() {
  Machine m;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) m.nproc = CPU_COUNT(&set);
  m.online = ::sysconf(_SC_NPROCESSORS_ONLN);
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) m.cpu_model = line.substr(colon + 2);
      break;
    }
  }
  utsname u{};
  if (::uname(&u) == 0) m.kernel = std::string(u.sysname) + " " + u.release;
  std::istringstream load(readFirstLine("/proc/loadavg"));
  std::string one, five, fifteen;
  load >> one >> five >> fifteen;
  m.loadavg = one + " " + five + " " + fifteen;
  return m;
}

CpuClock readCpuClock() {
  CpuClock c;
  c.wall_ns = nowNs();
  std::istringstream cpu(readFirstLine("/proc/stat"));
  std::string label;
  long long user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0,
            softirq = 0;
  cpu >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq;
  c.machine_busy_s = static_cast<double>(user + nice + system + irq + softirq) /
                     static_cast<double>(::sysconf(_SC_CLK_TCK));
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    ::getrusage(who, &usage);
    for (const timeval& t : {usage.ru_utime, usage.ru_stime}) {
      c.own_s +=
          static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    }
  }
  return c;
}

std::string foreignCpu(const CpuClock& start, const CpuClock& end, long cpus) {
  const double wall = static_cast<double>(end.wall_ns - start.wall_ns) / 1e9;
  const double foreign =
      std::max(0.0, (end.machine_busy_s - start.machine_busy_s) -
                        (end.own_s - start.own_s));
  const double share = 100 * foreign / (wall * std::max(1L, cpus));
  char text[200];
  std::snprintf(text, sizeof(text),
                "other processes used %.1f s of CPU over %.0f s (%.1f%% of "
                "%ld CPUs)%s",
                foreign, wall, share, cpus,
                share > 10 ? ": **disturbed, its timings are inflated**" : "");
  return text;
}

std::string utcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char text[64];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &tm);
  return text;
}

std::string runLines(const std::string& command,
                     const std::string& start_loadavg) {
  const Machine machine = describeMachine();
  std::ostringstream out;
  out << "- date: " << utcNow() << "\n"
      << "- command: `" << command << "`\n"
      << "- machine: nproc " << machine.nproc << " (online CPUs "
      << machine.online << "), CPU `" << machine.cpu_model << "`, "
      << machine.kernel << "\n"
      << "- load average (1, 5, 15 min) at the start / end: "
      << (start_loadavg.empty() ? "?" : start_loadavg) << " / "
      << machine.loadavg << "\n";
  return out.str();
}

}  // namespace bench_common
