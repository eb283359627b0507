#pragma once

// The last step of a benchmark's report: say when the run left no samples,
// and write the markdown report.

#include <cstdio>
#include <fstream>
#include <functional>
#include <ostream>
#include <string>

#include "bench_common/args.h"
#include "bench_common/machine.h"

namespace bench_common {

// Returns 1 (after saying so on stderr, prefixed with [tool]) when there were
// no samples in `samples` or `markdown` cannot be written; writes the report
// through `write` when `markdown` is not empty.
inline int finishReport(const char* tool, bool has_samples,
                        const std::string& samples, const std::string& markdown,
                        const std::function<void(std::ostream&)>& write) {
  int code = 0;
  if (!has_samples) {
    std::fprintf(stderr, "[%s] no samples in %s\n", tool, samples.c_str());
    code = 1;
  }
  if (markdown.empty()) return code;
  std::ofstream md(markdown);
  write(md);
  if (!md.flush()) {
    std::fprintf(stderr, "[%s] cannot write %s\n", tool, markdown.c_str());
    return 1;
  }
  return code;
}

// The report's "## Run" section: date, command (`default_command` unless
// the flags give one), machine, load, libtorch `torch_version` and the notes.
inline void writeRunSection(std::ostream& md, const ReportFlags& flags,
                            const char* default_command,
                            const char* torch_version) {
  md << "## Run\n\n"
     << runLines(flags.command.empty() ? default_command : flags.command,
                 flags.start_loadavg)
     << "- libtorch: " << torch_version << "\n";
  for (const std::string& note : flags.notes) md << "- " << note << "\n";
}

}  // namespace bench_common
