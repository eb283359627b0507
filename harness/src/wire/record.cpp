#include "wire/record.h"

#include <errno.h>
#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "wire/retry_on_eintr.h"

namespace ranktest::internal {
namespace {

// A frame: kind (u32), payload size (u32), then each field as its size (u32)
// and its bytes. Numbers travel as decimal text.
enum class Kind : std::uint32_t {
  kFailure = 2,
  kSkip = 3,
  kException = 4,
  kDebugWaiting = 5,
  kStackDumped = 6,
  kFinished = 7,
  kRun = 8,
};

constexpr std::size_t kHeaderSize = 2 * sizeof(std::uint32_t);

using Fields = std::vector<std::string>;

struct Frame {
  Kind kind;
  Fields fields;
};

Frame toFrame(const RankFailure& r) {
  return {Kind::kFailure, {r.file, std::to_string(r.line), r.message}};
}
Frame toFrame(const Skip& r) {
  return {Kind::kSkip, {std::to_string(static_cast<int>(r.code)), r.message}};
}
Frame toFrame(const RankException& r) {
  return {Kind::kException, {r.type, r.message}};
}
Frame toFrame(const DebugWaitingRecord& r) {
  return {Kind::kDebugWaiting, {std::to_string(r.pid)}};
}
Frame toFrame(const StackDumpedRecord&) { return {Kind::kStackDumped, {}}; }
Frame toFrame(const FinishedRecord& r) {
  return {Kind::kFinished, {std::to_string(r.code)}};
}
Frame toFrame(const RunRecord& r) {
  return {Kind::kRun, {r.test, std::to_string(r.sequence)}};
}

std::optional<long long> parseNumber(const std::string& text) {
  long long value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (error != std::errc() || stop != end) return std::nullopt;
  return value;
}

RankException malformed(const std::string& why) {
  return {"ranktest::MalformedRecord",
          "the rank sent a record that does not decode: " + why};
}

// Decodes a result frame; one that does not decode becomes an exception
// report, so that the test fails saying so instead of losing the record.
ResultRecord decodeResult(const Frame& frame) {
  const Fields& f = frame.fields;
  auto expect = [&](std::size_t count) { return f.size() == count; };
  switch (frame.kind) {
    case Kind::kFailure: {
      const auto line = expect(3) ? parseNumber(f[1]) : std::nullopt;
      if (!line) break;
      return RankFailure{f[0], static_cast<int>(*line), f[2]};
    }
    case Kind::kSkip: {
      const auto code = expect(2) ? parseNumber(f[0]) : std::nullopt;
      if (!code) break;
      return Skip{static_cast<SkipCode>(*code), f[1]};
    }
    case Kind::kException:
      if (!expect(2)) break;
      return RankException{f[0], f[1]};
    case Kind::kDebugWaiting: {
      const auto pid = expect(1) ? parseNumber(f[0]) : std::nullopt;
      if (!pid) break;
      return DebugWaitingRecord{static_cast<int>(*pid)};
    }
    case Kind::kStackDumped:
      if (!expect(0)) break;
      return StackDumpedRecord{};
    case Kind::kFinished: {
      const auto code = expect(1) ? parseNumber(f[0]) : std::nullopt;
      if (!code) break;
      return FinishedRecord{static_cast<int>(*code)};
    }
    default:
      return malformed("unknown record kind " +
                       std::to_string(static_cast<std::uint32_t>(frame.kind)));
  }
  return malformed("record kind " +
                   std::to_string(static_cast<std::uint32_t>(frame.kind)) +
                   " with " + std::to_string(f.size()) + " malformed field(s)");
}

void appendU32(std::string& out, std::uint32_t value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(value));
}

std::uint32_t readU32(const char* in) {
  std::uint32_t value;
  std::memcpy(&value, in, sizeof(value));
  return value;
}

std::string encode(const Frame& frame) {
  std::string payload;
  for (const std::string& field : frame.fields) {
    appendU32(payload, static_cast<std::uint32_t>(field.size()));
    payload += field;
  }
  std::string out;
  appendU32(out, static_cast<std::uint32_t>(frame.kind));
  appendU32(out, static_cast<std::uint32_t>(payload.size()));
  return out + payload;
}

// Splits a whole frame (header included) into its fields; nullopt when a
// field runs past the payload.
std::optional<Frame> decodeFrame(const char* data, std::size_t size) {
  Frame frame{static_cast<Kind>(readU32(data)), {}};
  std::size_t offset = kHeaderSize;
  while (offset < size) {
    if (size - offset < sizeof(std::uint32_t)) return std::nullopt;
    const std::uint32_t length = readU32(data + offset);
    offset += sizeof(std::uint32_t);
    if (size - offset < length) return std::nullopt;
    frame.fields.emplace_back(data + offset, length);
    offset += length;
  }
  return frame;
}

// Moves all `size` bytes with read() or write(), retrying short transfers;
// false at end of file or on an error. Async-signal-safe.
template <typename Buffer, typename Transfer>
bool transferAll(int fd, Buffer* data, std::size_t size, Transfer transfer) {
  while (size > 0) {
    const ssize_t n = retryOnEintr([&] { return transfer(fd, data, size); });
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

bool sendFrame(int fd, const Frame& frame) {
  // A record larger than the pipe's atomic size must not interleave with
  // another thread's.
  static std::mutex sending;
  const std::string bytes = encode(frame);
  std::lock_guard<std::mutex> lock(sending);
  return transferAll(fd, bytes.data(), bytes.size(), ::write);
}

}  // namespace

bool sendResult(int fd, const ResultRecord& record) {
  return sendFrame(
      fd, std::visit([](const auto& r) { return toFrame(r); }, record));
}

void sendStackDumpedFromSignalHandler(int fd) {
  const std::uint32_t frame[2] = {
      static_cast<std::uint32_t>(Kind::kStackDumped), 0};
  transferAll(fd, reinterpret_cast<const char*>(frame), sizeof(frame), ::write);
}

void ResultReader::feed(const char* data, std::size_t size) {
  buffer_.append(data, size);
}

std::optional<ResultRecord> ResultReader::next() {
  if (buffer_.size() < kHeaderSize) return std::nullopt;
  const std::size_t size =
      kHeaderSize + readU32(buffer_.data() + sizeof(std::uint32_t));
  if (buffer_.size() < size) return std::nullopt;
  const std::optional<Frame> frame = decodeFrame(buffer_.data(), size);
  buffer_.erase(0, size);
  if (!frame) return malformed("a field runs past the end of its record");
  return decodeResult(*frame);
}

bool sendRun(int fd, const RunRecord& record) {
  return sendFrame(fd, toFrame(record));
}

std::optional<RunRecord> receiveRun(int fd) {
  // Reads exactly one frame: the next command stays in the pipe.
  std::string bytes(kHeaderSize, '\0');
  if (!transferAll(fd, bytes.data(), kHeaderSize, ::read)) return std::nullopt;
  bytes.resize(kHeaderSize + readU32(bytes.data() + sizeof(std::uint32_t)));
  if (!transferAll(fd, bytes.data() + kHeaderSize, bytes.size() - kHeaderSize,
                   ::read)) {
    return std::nullopt;
  }
  const std::optional<Frame> frame = decodeFrame(bytes.data(), bytes.size());
  if (!frame || frame->kind != Kind::kRun || frame->fields.size() != 2) {
    return std::nullopt;
  }
  const auto sequence = parseNumber(frame->fields[1]);
  if (!sequence) return std::nullopt;
  return RunRecord{frame->fields[0], static_cast<long>(*sequence)};
}

}  // namespace ranktest::internal
