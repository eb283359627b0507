#pragma once

// Looks at processes from the outside, through /proc: which carry a token in
// their environment, and which TCP ports they listen on.

#include <sys/types.h>

#include <string>
#include <vector>

namespace harness_suite {

// The whole file, or "" if it cannot be read.
std::string readFile(const std::string& path);

// How often `what` occurs in `text`.
std::size_t countOccurrences(const std::string& text, const std::string& what);

// Processes whose environment holds RANKTEST_SELFTEST_TOKEN=<token>.
std::vector<pid_t> processesWithToken(const std::string& token);

// TCP ports in LISTEN state held by any of `pids`.
std::vector<int> listeningPortsOf(const std::vector<pid_t>& pids);

}  // namespace harness_suite
