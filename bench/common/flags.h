#pragma once

// A benchmark binary's command line: --name=value flags, read by name with a
// default. Arguments for googletest and ranktest (--gtest_*, --ranktest_*)
// are left to them.

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace bench {

class Flags {
 public:
  // Throws std::invalid_argument for an argument that is not --name=value.
  Flags(int argc, char** argv);

  std::string text(const std::string& name, const std::string& fallback);
  int integer(const std::string& name, int fallback);
  double number(const std::string& name, double fallback);
  // A comma-separated list, e.g. --world_sizes=2,4.
  std::vector<std::string> list(const std::string& name,
                                const std::string& fallback);
  std::vector<int> integers(const std::string& name,
                            const std::string& fallback);

  // Throws std::invalid_argument naming a flag that nothing read: a typo
  // must not run a benchmark with its defaults.
  void checkAllRead() const;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> read_;
};

// A benchmark's main: runs `body`; an exception's message goes to stderr
// and makes the exit code 1.
int guardedMain(const char* tool, const std::function<void()>& body);

}  // namespace bench
