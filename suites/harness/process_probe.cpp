#include "process_probe.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace harness_suite {
namespace {

namespace fs = std::filesystem;

std::vector<pid_t> allPids() {
  std::vector<pid_t> pids;
  if (DIR* proc = ::opendir("/proc")) {
    while (dirent* entry = ::readdir(proc)) {
      // Only the numeric entries are processes.
      char* end = nullptr;
      const long pid = std::strtol(entry->d_name, &end, 10);
      if (*end == '\0' && pid > 0) pids.push_back(static_cast<pid_t>(pid));
    }
    ::closedir(proc);
  }
  return pids;
}

std::set<std::string> socketInodesOf(pid_t pid) {
  std::set<std::string> inodes;
  const std::string dir = "/proc/" + std::to_string(pid) + "/fd";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    char target[256];
    const ssize_t n =
        ::readlink(entry.path().c_str(), target, sizeof(target) - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (std::strncmp(target, "socket:[", 8) == 0) {
      inodes.insert(std::string(target + 8, std::strlen(target + 8) - 1));
    }
  }
  return inodes;
}

}  // namespace

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

std::size_t countOccurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos;
       at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

std::vector<pid_t> processesWithToken(const std::string& token) {
  const std::string needle = "RANKTEST_SELFTEST_TOKEN=" + token;
  std::vector<pid_t> found;
  for (pid_t pid : allPids()) {
    const std::string environment =
        readFile("/proc/" + std::to_string(pid) + "/environ");
    std::istringstream entries(environment);
    std::string entry;
    while (std::getline(entries, entry, '\0')) {
      if (entry == needle) {
        found.push_back(pid);
        break;
      }
    }
  }
  return found;
}

std::vector<int> listeningPortsOf(const std::vector<pid_t>& pids) {
  std::set<std::string> inodes;
  for (pid_t pid : pids) {
    for (const std::string& inode : socketInodesOf(pid)) inodes.insert(inode);
  }
  std::vector<int> ports;
  for (const char* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
    std::istringstream lines(readFile(table));
    std::string line;
    std::getline(lines, line);  // header
    while (std::getline(lines, line)) {
      std::istringstream fields(line);
      std::string slot, local, remote, state, queues, timer, retr, uid, tmo,
          inode;
      fields >> slot >> local >> remote >> state >> queues >> timer >> retr >>
          uid >> tmo >> inode;
      if (state != "0A" || inodes.count(inode) == 0) continue;  // 0A: LISTEN
      ports.push_back(
          std::stoi(local.substr(local.find(':') + 1), nullptr, 16));
    }
  }
  return ports;
}

}  // namespace harness_suite
