#pragma once

// How the ctest client (ranktest_warm_client) and a test binary's warm
// process talk. The client starts the binary once as a warm process
// (kWarmServeFlag), which keeps libtorch initialised and listens on an
// abstract Unix socket; for each test the client sends its working
// directory, arguments and standard streams, the warm process forks a fresh
// child that runs the test on those streams, and reports the child's pid and
// then its wait status. (Free of libtorch.)
//
// Messages are SOCK_SEQPACKET packets:
//   client -> warm:  "run\0<cwd>\0<arg1>\0...<argN>\0" with fds 0, 1, 2
//   warm -> client:  "pid <pid>", then "exit <wait status>"; or "stale" (its
//                    build changed: start a new one), "ending" (its ctest run
//                    ended: run nothing) or "refuse <reason>"
// and the warm process's start-up answer on a pipe, one line after its pid:
// "ready", "busy" (another warm process holds the name), "ending" or
// "cannot <reason>".

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "warm/build_identity.h"

namespace ranktest::internal {

inline constexpr int kWarmProtocolVersion = 2;  // 2: the field codec

// argv[1] of a warm process: "--ranktest_warm_serve=" and its socket name,
// ready fd, owner pid and idle ms in the field codec (wire/fields.h);
// argv[2..] are placeholders that a test's arguments replace in the child.
inline constexpr char kWarmServeFlag[] = "--ranktest_warm_serve=";
inline constexpr char kWarmArgumentSlot[] = "--ranktest_warm_slot";

struct WarmServeArguments {
  std::string socket_name;
  int ready_fd = -1;
  pid_t owner = 0;
  int idle_ms = 0;
};
std::string encodeServeFlag(const WarmServeArguments& arguments);
std::optional<WarmServeArguments> decodeServeFlag(const char* argument);

// A hash of environment `envp`, whatever the order of its variables: what
// static initialisation may read (WORLD_SIZE, BACKEND, RANKTEST_*,
// GTEST_FILTER choose what registers and what a listing prints).
std::uint64_t environmentHash(char** envp);

// A hash of what a process passes to its children besides its environment
// and that a test may depend on: its umask, resource limits (soft and hard)
// and CPU affinity (ctest's PROCESSOR_AFFINITY sets one per test). A test
// forked by a warm process has the warm process's, so a client whose differ
// needs a warm process of its own.
std::uint64_t processSettingsHash();

// The abstract socket name of the warm process for one build of `binary`,
// serving clients of `owner` (the ctest run) with `argument_count` arguments
// in environment `envp` and with process settings `settings`
// (processSettingsHash()): any difference means another warm process, since
// static initialisation may read any of them and the tests inherit the
// settings. The name holds the user id and the protocol version too.
std::string warmSocketName(const FileIdentity& binary, pid_t owner,
                           std::size_t argument_count, char** envp,
                           std::uint64_t settings);

// A listening SOCK_SEQPACKET socket on abstract `name` (close-on-exec), or
// -1 with errno (EADDRINUSE: another process holds the name).
int listenOnAbstract(const std::string& name);
// A socket connected to abstract `name`, or -1 with errno.
int connectToAbstract(const std::string& name);
// The uid of the process at the other end of Unix socket `fd`, or -1.
long peerUid(int fd);

// Sends one packet, with `fds` attached; false on error (never SIGPIPE).
bool sendPacket(int fd, const std::string& data,
                const std::vector<int>& fds = {});
// Receives one packet into `data` and its attached descriptors into `fds`
// (close-on-exec). False at end of stream or on error; a packet too long
// for the buffer is an error.
bool receivePacket(int fd, std::string& data, std::vector<int>* fds = nullptr);

// The integer of a packet "<prefix><integer>" (the server's "pid N" and
// "exit N"); nullopt for any other packet.
std::optional<long> numberAfter(const std::string& packet,
                                const std::string& prefix);

// Set by the client for a listing run (--gtest_list_tests) whose result it
// caches: the file where ranktest::init writes the files the binary maps,
// one path per line, for the cache to hold their identities.
inline constexpr char kListMappedFilesVariable[] = "RANKTEST_LIST_MAPPED_FILES";

struct RunRequest {
  std::string cwd;
  std::vector<std::string> args;  // after argv[0]
};
std::string encodeRunRequest(const RunRequest& request);
std::optional<RunRequest> decodeRunRequest(const std::string& packet);

}  // namespace ranktest::internal
