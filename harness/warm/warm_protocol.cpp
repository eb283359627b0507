#include "warm/warm_protocol.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "wire/fields.h"
#include "wire/number_text.h"
#include "wire/retry_on_eintr.h"

namespace ranktest::internal {
namespace {

// FNV-1a, 64 bits: a name, not a secret (the peer's uid is checked).
class NameHash {
 public:
  void add(const void* data, std::size_t size) {
    const auto* bytes = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < size; ++i) {
      state_ = (state_ ^ bytes[i]) * 0x100000001b3ULL;
    }
  }
  void add(const std::string& text) { add(text.data(), text.size() + 1); }
  template <typename T>
  void addValue(T value) {
    add(&value, sizeof(value));
  }
  std::uint64_t value() const { return state_; }

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

sockaddr_un abstractAddress(const std::string& name, socklen_t& length) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  // sun_path[0] = '\0': the abstract namespace, gone with its last socket.
  const std::size_t size = std::min(name.size(), sizeof(address.sun_path) - 1);
  std::memcpy(address.sun_path + 1, name.data(), size);
  length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + size);
  return address;
}

}  // namespace

std::uint64_t environmentHash(char** envp) {
  std::vector<std::string> environment;
  for (char** e = envp; e != nullptr && *e != nullptr; ++e) {
    environment.emplace_back(*e);
  }
  // The same variables in another order are the same environment.
  std::sort(environment.begin(), environment.end());
  NameHash hash;
  for (const std::string& variable : environment) hash.add(variable);
  return hash.value();
}

std::string encodeServeFlag(const WarmServeArguments& arguments) {
  return std::string(kWarmServeFlag) + FieldWriter()
                                           .text(arguments.socket_name)
                                           .integer(arguments.ready_fd)
                                           .integer(arguments.owner)
                                           .integer(arguments.idle_ms)
                                           .bytes();
}

std::optional<WarmServeArguments> decodeServeFlag(const char* argument) {
  const std::size_t prefix = std::strlen(kWarmServeFlag);
  if (std::strncmp(argument, kWarmServeFlag, prefix) != 0) return std::nullopt;
  try {
    FieldReader in(argument + prefix, "the warm process's flag");
    WarmServeArguments arguments;
    arguments.socket_name = in.text();
    arguments.ready_fd = static_cast<int>(in.integer(0, kIntFieldMax));
    arguments.owner = static_cast<pid_t>(in.integer(0, kIntFieldMax));
    arguments.idle_ms = static_cast<int>(in.integer(0, kIntFieldMax));
    in.expectEnd();
    if (arguments.socket_name.empty()) return std::nullopt;
    return arguments;
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

std::uint64_t processSettingsHash() {
  NameHash hash;
  // Read by setting it: this client runs no other thread.
  const mode_t mask = ::umask(0);
  ::umask(mask);
  hash.addValue(mask);
  for (int resource = 0; resource < RLIM_NLIMITS; ++resource) {
    rlimit limit{};
    if (::getrlimit(resource, &limit) == 0) {
      hash.addValue(limit.rlim_cur);
      hash.addValue(limit.rlim_max);
    }
  }
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (::sched_getaffinity(0, sizeof(cpus), &cpus) == 0) {
    hash.add(&cpus, sizeof(cpus));
  }
  return hash.value();
}

std::string warmSocketName(const FileIdentity& binary, pid_t owner,
                           std::size_t argument_count, char** envp,
                           std::uint64_t settings) {
  NameHash hash;
  hash.addValue(kWarmProtocolVersion);
  hash.add(binary.path);
  hash.addValue(binary.device);
  hash.addValue(binary.inode);
  hash.addValue(binary.size);
  hash.addValue(binary.mtime_ns);
  hash.addValue(owner);
  hash.addValue(argument_count);
  hash.addValue(environmentHash(envp));
  hash.addValue(settings);
  char name[96];
  std::snprintf(name, sizeof(name), "ranktest-warm-%d-%u-%016llx",
                kWarmProtocolVersion, static_cast<unsigned>(::getuid()),
                static_cast<unsigned long long>(hash.value()));
  return name;
}

namespace {

// A SOCK_SEQPACKET socket (close-on-exec) that `attach` binds or connects to
// abstract `name`; -1 with attach's errno if it fails.
template <typename Attach>
int abstractSocket(const std::string& name, Attach attach) {
  const int fd = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  socklen_t length = 0;
  const sockaddr_un address = abstractAddress(name, length);
  if (!attach(fd, reinterpret_cast<const sockaddr*>(&address), length)) {
    const int error = errno;
    ::close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

}  // namespace

int listenOnAbstract(const std::string& name) {
  return abstractSocket(name, [](int fd, const sockaddr* at, socklen_t size) {
    return ::bind(fd, at, size) == 0 && ::listen(fd, 64) == 0;
  });
}

int connectToAbstract(const std::string& name) {
  return abstractSocket(name, [](int fd, const sockaddr* at, socklen_t size) {
    return ::connect(fd, at, size) == 0;
  });
}

long peerUid(int fd) {
  ucred credentials{};
  socklen_t length = sizeof(credentials);
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) {
    return -1;
  }
  return static_cast<long>(credentials.uid);
}

bool sendPacket(int fd, const std::string& data, const std::vector<int>& fds) {
  iovec part{const_cast<char*>(data.data()), data.size()};
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  std::vector<char> control;
  if (!fds.empty()) {
    control.resize(CMSG_SPACE(sizeof(int) * fds.size()));
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    cmsghdr* header = CMSG_FIRSTHDR(&message);
    header->cmsg_level = SOL_SOCKET;
    header->cmsg_type = SCM_RIGHTS;
    header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
    std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
  }
  const ssize_t sent =
      retryOnEintr([&] { return ::sendmsg(fd, &message, MSG_NOSIGNAL); });
  return sent == static_cast<ssize_t>(data.size());
}

bool receivePacket(int fd, std::string& data, std::vector<int>* fds) {
  // Room for a test's arguments however long its filter.
  constexpr std::size_t kPacketLimit = std::size_t{1} << 18;
  std::vector<char> buffer(kPacketLimit);
  iovec part{buffer.data(), buffer.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * 8)];
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof(control);
  const ssize_t received =
      retryOnEintr([&] { return ::recvmsg(fd, &message, MSG_CMSG_CLOEXEC); });
  std::vector<int> attached;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS) {
      const std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
      const std::size_t first = attached.size();
      attached.resize(first + count);
      std::memcpy(attached.data() + first, CMSG_DATA(header),
                  count * sizeof(int));
    }
  }
  const bool whole = received > 0 && (message.msg_flags & MSG_TRUNC) == 0 &&
                     (message.msg_flags & MSG_CTRUNC) == 0;
  if (!whole || fds == nullptr) {
    for (int attached_fd : attached) ::close(attached_fd);
    attached.clear();
  }
  if (fds != nullptr) *fds = std::move(attached);
  if (!whole) return false;
  data.assign(buffer.data(), static_cast<std::size_t>(received));
  return true;
}

std::optional<long> numberAfter(const std::string& packet,
                                const std::string& prefix) {
  if (packet.rfind(prefix, 0) != 0) return std::nullopt;
  return parseInteger(std::string_view(packet).substr(prefix.size()),
                      std::numeric_limits<long>::min(),
                      std::numeric_limits<long>::max());
}

std::string encodeRunRequest(const RunRequest& request) {
  FieldWriter w;
  w.text("run").text(request.cwd);
  w.integer(static_cast<std::int64_t>(request.args.size()));
  for (const std::string& arg : request.args) w.text(arg);
  return w.bytes();
}

std::optional<RunRequest> decodeRunRequest(const std::string& packet) {
  try {
    FieldReader in(packet, "a warm client's run request");
    if (in.text() != "run") return std::nullopt;
    RunRequest request;
    request.cwd = in.text();
    // No more arguments than the packet has bytes.
    for (std::int64_t n =
             in.integer(0, static_cast<std::int64_t>(packet.size()));
         n > 0; --n) {
      request.args.push_back(in.text());
    }
    in.expectEnd();
    return request;
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

}  // namespace ranktest::internal
