#pragma once

// The benchmark binaries' options: --bench_<key>=<value>.

#include <cstdio>
#include <exception>
#include <functional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bench_common {

struct BenchArg {
  std::string key;
  std::string value;
};

// Splits "--bench_<key>=<value>"; throws std::invalid_argument otherwise.
inline BenchArg splitBenchArg(const std::string& arg) {
  constexpr std::string_view kPrefix = "--bench_";
  const std::size_t eq = arg.find('=');
  if (arg.rfind(kPrefix, 0) != 0 || eq == std::string::npos) {
    throw std::invalid_argument("unknown argument " + arg);
  }
  return {arg.substr(kPrefix.size(), eq - kPrefix.size()), arg.substr(eq + 1)};
}

// "a,b,c" as {"a", "b", "c"}; empty items are dropped.
inline std::vector<std::string> splitCommas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// What every benchmark's report step reads: --bench_report, _markdown,
// _command, _note (repeated) and _start_loadavg.
struct ReportFlags {
  std::string samples;             // the samples file
  std::string markdown;            // the results file, if any
  std::string command;             // as the reader would retype it
  std::vector<std::string> notes;  // lines for the run section
  std::string start_loadavg;
};

// Stores the flag in `flags` when it is one of ReportFlags'; false
// otherwise.
inline bool readReportFlag(const BenchArg& arg, ReportFlags& flags) {
  if (arg.key == "report") {
    flags.samples = arg.value;
  } else if (arg.key == "markdown") {
    flags.markdown = arg.value;
  } else if (arg.key == "command") {
    flags.command = arg.value;
  } else if (arg.key == "note") {
    flags.notes.push_back(arg.value);
  } else if (arg.key == "start_loadavg") {
    flags.start_loadavg = arg.value;
  } else {
    return false;
  }
  return true;
}

// A cell's "MODEL,WORLD_SIZE".
struct CellName {
  std::string model;
  int world_size = 0;
};

// Splits --bench_cell's value; throws std::invalid_argument otherwise.
inline CellName splitCell(const std::string& text) {
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos) {
    throw std::invalid_argument("--bench_cell=MODEL,WORLD_SIZE, not " + text);
  }
  return {text.substr(0, comma), std::stoi(text.substr(comma + 1))};
}

// A benchmark's main: runs `run`; an exception becomes "[tool] what" on
// stderr and exit code 2.
inline int guardedMain(const char* tool, const std::function<int()>& run) {
  try {
    return run();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "[%s] %s\n", tool, error.what());
    return 2;
  }
}

}  // namespace bench_common
