#include "test_list_cache.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

#include "process/program.h"
#include "warm/build_identity.h"
#include "warm/warm_protocol.h"
#include "warm/warm_start.h"

namespace ranktest::warm {
namespace {

using internal::FileIdentity;

// 2: the environment's hash follows the header.
constexpr char kHeader[] = "ranktest-test-list 2";
constexpr char kEndOfIdentities[] = "--";

std::string environmentLine(char** envp) {
  return "environment " + std::to_string(internal::environmentHash(envp));
}

// The cached listing, if the cache describes this very build of `binary`
// listed in this environment.
std::optional<std::string> cachedListing(const std::string& cache_path,
                                         const FileIdentity& binary,
                                         char** envp) {
  std::ifstream in(cache_path);
  std::string line;
  if (!std::getline(in, line) || line != kHeader) return std::nullopt;
  if (!std::getline(in, line) || line != environmentLine(envp)) {
    return std::nullopt;
  }
  std::vector<FileIdentity> identities;
  while (std::getline(in, line) && line != kEndOfIdentities) {
    std::optional<FileIdentity> id = internal::decodeIdentity(line);
    if (!id) return std::nullopt;
    identities.push_back(std::move(*id));
  }
  if (line != kEndOfIdentities || identities.empty() ||
      !(identities.front() == binary) || !internal::stillTheSame(identities)) {
    return std::nullopt;
  }
  std::ostringstream listing;
  listing << in.rdbuf();
  return listing.str();
}

struct ListingRun {
  int exit_code = 1;
  std::string listing;
};

ListingRun runListing(const std::string& binary, const std::string& mapped,
                      char** envp) {
  internal::ProgramCall call;
  call.executable = binary;
  call.arguments = {binary, "--gtest_list_tests"};
  call.environment.emplace();
  const std::string mapped_entry =
      std::string(internal::kListMappedFilesVariable) + "=";
  for (char** entry = envp; *entry != nullptr; ++entry) {
    if (std::string(*entry).rfind(mapped_entry, 0) != 0) {
      call.environment->emplace_back(*entry);
    }
  }
  call.environment->push_back(mapped_entry + mapped);
  ListingRun run;
  try {
    const internal::ProgramRun listed =
        internal::runProgram(call, kSuiteStartLimit);
    run.listing = listed.output;
    run.exit_code =
        listed.exit_code >= 0 ? listed.exit_code : 128 + listed.signal;
    if (listed.timed_out) {
      std::cerr << "ranktest_warm_client: " << binary
                << " --gtest_list_tests did not end within "
                << kSuiteStartLimit.count() << " s" << std::endl;
    }
  } catch (const std::exception& error) {
    std::cerr << "ranktest_warm_client: " << error.what() << std::endl;
    run.exit_code = 127;
  }
  return run;
}

std::vector<std::string> readLines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

}  // namespace

int printTestList(const std::string& cache_path, const std::string& binary,
                  char** envp) {
  const std::optional<FileIdentity> before = internal::identifyFile(binary);
  if (before) {
    if (std::optional<std::string> listing =
            cachedListing(cache_path, *before, envp)) {
      std::cout << *listing << std::flush;
      return 0;
    }
  }
  const std::string suffix = "." + std::to_string(::getpid()) + ".tmp";
  const std::string mapped = cache_path + ".mapped" + suffix;
  const ListingRun run = runListing(binary, mapped, envp);
  std::cout << run.listing << std::flush;
  const std::vector<std::string> mapped_paths = readLines(mapped);
  ::unlink(mapped.c_str());
  // Cached only when the run listed, said what it mapped (a binary of an
  // older ranktest does not), and the binary did not change meanwhile.
  if (run.exit_code != 0 || mapped_paths.empty() || !before ||
      !(internal::identifyFile(binary) == before)) {
    return run.exit_code;
  }
  std::vector<FileIdentity> identities{*before};
  for (FileIdentity& id : internal::identifyFiles(mapped_paths)) {
    if (id.path != before->path) identities.push_back(std::move(id));
  }
  const std::string temporary = cache_path + suffix;
  {
    std::ofstream out(temporary, std::ios::trunc);
    out << kHeader << '\n'
        << environmentLine(envp) << '\n'
        << internal::encodeIdentities(identities) << kEndOfIdentities << '\n'
        << run.listing;
    if (!out) {
      ::unlink(temporary.c_str());
      return 0;
    }
  }
  // Atomic: a concurrent ctest reads the old cache or the new, never half.
  if (std::rename(temporary.c_str(), cache_path.c_str()) != 0) {
    ::unlink(temporary.c_str());
  }
  return 0;
}

}  // namespace ranktest::warm
