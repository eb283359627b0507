#include "test_list_cache.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <vector>

#include "warm/build_identity.h"
#include "warm/warm_protocol.h"
#include "wire/retry_on_eintr.h"

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

ListingRun runListing(const std::string& binary, const std::string& mapped) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return {};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out[1], 1);
    ::setenv(internal::kListMappedFilesVariable, mapped.c_str(), 1);
    ::execl(binary.c_str(), binary.c_str(), "--gtest_list_tests", nullptr);
    std::perror(binary.c_str());
    ::_exit(127);
  }
  ::close(out[1]);
  ListingRun run;
  char chunk[65536];
  for (;;) {
    const ssize_t n = internal::retryOnEintr(
        [&] { return ::read(out[0], chunk, sizeof(chunk)); });
    if (n <= 0) break;
    run.listing.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  internal::retryOnEintr([&] { return ::waitpid(pid, &status, 0); });
  run.exit_code =
      WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
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
  const ListingRun run = runListing(binary, mapped);
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
