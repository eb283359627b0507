#include "warm/build_identity.h"

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string_view>

namespace ranktest::internal {

std::optional<FileIdentity> identifyFile(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::nullopt;
  }
  FileIdentity id;
  id.path = path;
  id.device = st.st_dev;
  id.inode = st.st_ino;
  id.size = st.st_size;
  id.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 +
                st.st_mtim.tv_nsec;
  return id;
}

std::vector<std::string> mappedFiles() {
  std::vector<std::string> paths;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    // "address perms offset dev inode    path": the path starts at the
    // first '/' (a replaced file's ends in " (deleted)": see
    // identifyFiles). Device files and memfds are not part of a build.
    const std::size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    if (path.rfind("/dev/", 0) == 0 || path.rfind("/memfd:", 0) == 0) continue;
    paths.push_back(std::move(path));
  }
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  return paths;
}

std::vector<FileIdentity> identifyFiles(const std::vector<std::string>& paths) {
  constexpr std::string_view kDeleted = " (deleted)";
  std::vector<FileIdentity> identities;
  for (const std::string& path : paths) {
    if (path.ends_with(kDeleted)) {
      // Mapped, then replaced (a library relinked while this process
      // started): an identity no file has, so that the build counts as
      // changed. A file deleted for good (a temporary) is no part of it.
      const std::string now = path.substr(0, path.size() - kDeleted.size());
      if (identifyFile(now)) identities.push_back(FileIdentity{now});
      continue;
    }
    if (auto id = identifyFile(path)) identities.push_back(std::move(*id));
  }
  return identities;
}

bool stillTheSame(const std::vector<FileIdentity>& identities) {
  return std::all_of(
      identities.begin(), identities.end(),
      [](const FileIdentity& id) { return identifyFile(id.path) == id; });
}

std::string encodeIdentities(const std::vector<FileIdentity>& identities) {
  std::ostringstream out;
  for (const FileIdentity& id : identities) {
    out << id.device << ' ' << id.inode << ' ' << id.size << ' ' << id.mtime_ns
        << ' ' << id.path << '\n';
  }
  return out.str();
}

std::optional<FileIdentity> decodeIdentity(const std::string& line) {
  std::istringstream in(line);
  FileIdentity id;
  if (!(in >> id.device >> id.inode >> id.size >> id.mtime_ns)) {
    return std::nullopt;
  }
  in.get();  // the space before the path, which may hold spaces itself
  std::getline(in, id.path);
  if (id.path.empty() || id.path[0] != '/') return std::nullopt;
  return id;
}

}  // namespace ranktest::internal
