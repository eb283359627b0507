#include "ranktest/internal/record.h"

#include <errno.h>
#include <unistd.h>

#include <cstring>
#include <mutex>

namespace ranktest::internal {
namespace {

void appendU32(std::string& out, std::uint32_t value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

std::uint32_t readU32(const std::string& in, std::size_t offset) {
  std::uint32_t value;
  std::memcpy(&value, in.data() + offset, sizeof(value));
  return value;
}

// Moves all `size` bytes with read() or write(), retrying short transfers;
// false at end of file or on an error. Async-signal-safe.
template <typename Buffer, typename Transfer>
bool transferAll(int fd, Buffer* data, std::size_t size, Transfer transfer) {
  while (size > 0) {
    const ssize_t n = transfer(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool writeAll(int fd, const char* data, std::size_t size) {
  return transferAll(fd, data, size, ::write);
}

bool readAll(int fd, char* data, std::size_t size) {
  return transferAll(fd, data, size, ::read);
}

}  // namespace

bool writeRecord(int fd, const Record& record) {
  // gtest results may come from several threads of a rank; a record larger
  // than the pipe's atomic size must not interleave with another.
  static std::mutex writing;
  std::string payload;
  for (const std::string& field : record.fields) {
    appendU32(payload, static_cast<std::uint32_t>(field.size()));
    payload += field;
  }
  std::string frame;
  appendU32(frame, static_cast<std::uint32_t>(record.type));
  appendU32(frame, static_cast<std::uint32_t>(payload.size()));
  frame += payload;
  std::lock_guard<std::mutex> lock(writing);
  return writeAll(fd, frame.data(), frame.size());
}

void writeEmptyRecordFromSignalHandler(int fd, RecordType type) {
  std::uint32_t frame[2] = {static_cast<std::uint32_t>(type), 0};
  writeAll(fd, reinterpret_cast<const char*>(frame), sizeof(frame));
}

void RecordReader::feed(const char* data, std::size_t size) {
  buffer_.append(data, size);
}

std::optional<Record> RecordReader::next() {
  constexpr std::size_t kHeader = 2 * sizeof(std::uint32_t);
  if (buffer_.size() < kHeader) return std::nullopt;
  const std::uint32_t payload_size = readU32(buffer_, sizeof(std::uint32_t));
  if (buffer_.size() < kHeader + payload_size) return std::nullopt;
  Record record{static_cast<RecordType>(readU32(buffer_, 0)), {}};
  std::size_t offset = kHeader;
  while (offset + sizeof(std::uint32_t) <= kHeader + payload_size) {
    const std::uint32_t length = readU32(buffer_, offset);
    offset += sizeof(std::uint32_t);
    record.fields.emplace_back(buffer_, offset, length);
    offset += length;
  }
  buffer_.erase(0, kHeader + payload_size);
  return record;
}

std::optional<Record> readRecordBlocking(int fd) {
  // Reads exactly one frame, so that the next record stays in the pipe.
  char header[2 * sizeof(std::uint32_t)];
  if (!readAll(fd, header, sizeof(header))) return std::nullopt;
  std::uint32_t payload_size;
  std::memcpy(&payload_size, header + sizeof(std::uint32_t),
              sizeof(payload_size));
  std::string frame(header, sizeof(header));
  frame.resize(sizeof(header) + payload_size);
  if (!readAll(fd, frame.data() + sizeof(header), payload_size)) {
    return std::nullopt;
  }
  RecordReader reader;
  reader.feed(frame.data(), frame.size());
  return reader.next();
}

}  // namespace ranktest::internal
