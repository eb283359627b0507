#pragma once

// A build of a test binary as files on disk: the binary and every file it
// maps (its shared libraries), each by device, inode, size and modification
// time. A warm process and a cached test listing stay valid only while their
// build's identity holds: a rebuilt, replaced or removed file ends it.
// (Free of libtorch: the ctest client uses it too.)

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ranktest::internal {

struct FileIdentity {
  std::string path;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = 0;
  std::int64_t mtime_ns = 0;

  bool operator==(const FileIdentity&) const = default;
};

// The identity of the regular file at `path`; nullopt if there is none.
std::optional<FileIdentity> identifyFile(const std::string& path);

// Regular files mapped into this process (its executable and shared
// libraries), from /proc/self/maps, each once.
std::vector<std::string> mappedFiles();

// Identities of `paths`; a path that is no regular file is left out. A
// mapped path "<file> (deleted)" whose <file> exists again (replaced since
// it was mapped) gets an identity no file has, so that stillTheSame fails.
std::vector<FileIdentity> identifyFiles(const std::vector<std::string>& paths);

// Whether every file in `identities` is still the same file, unmodified.
bool stillTheSame(const std::vector<FileIdentity>& identities);

// One identity per line, "<device> <inode> <size> <mtime_ns> <path>", and back.
std::string encodeIdentities(const std::vector<FileIdentity>& identities);
std::optional<FileIdentity> decodeIdentity(const std::string& line);

}  // namespace ranktest::internal
