#pragma once

// The machine the numbers come from, and how busy others kept it: timings
// on a small shared machine mean little without both.

#include <cstdint>
#include <string>

namespace bench_common {

struct Machine {
  int nproc = 0;  // CPUs this process may run on
  long online = 0;
  std::string cpu_model;
  std::string kernel;
  std::string loadavg;  // 1, 5 and 15 minutes
};

Machine describeMachine();

// CPU time used by the whole machine and by this process with its reaped
// children (the ranks), to tell how much other processes used meanwhile.
struct CpuClock {
  double machine_busy_s = 0;
  double own_s = 0;
  std::int64_t wall_ns = 0;  // steady_clock
};

CpuClock readCpuClock();

// "other processes used 1.2 s of CPU over 300 s (0.2% of 2 CPUs)", marked
// disturbed above 10%.
std::string foreignCpu(const CpuClock& start, const CpuClock& end, long cpus);

// "2026-11-22 02:04:46 UTC".
std::string utcNow();

// The first lines of a results file's "Run" section, as markdown list
// items: date (now), command, machine and load average at the start / now.
std::string runLines(const std::string& command,
                     const std::string& start_loadavg);

}  // namespace bench_common
