#include "wire/record.h"

#include <errno.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <stdexcept>

#include "wire/fields.h"
#include "wire/retry_on_eintr.h"

namespace ranktest::internal {
namespace {

// A frame: kind (u32) and payload size (u32), the transport's framing on the
// pipe; then the payload, the record's fields in the field codec
// (fields.h).
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

struct Frame {
  Kind kind;
  std::string payload;
};

Frame toFrame(const RankFailure& r) {
  return {Kind::kFailure,
          FieldWriter().text(r.file).integer(r.line).text(r.message).bytes()};
}
Frame toFrame(const Skip& r) {
  return {
      Kind::kSkip,
      FieldWriter().integer(static_cast<int>(r.code)).text(r.message).bytes()};
}
Frame toFrame(const RankException& r) {
  return {Kind::kException, FieldWriter().text(r.type).text(r.message).bytes()};
}
Frame toFrame(const DebugWaitingRecord& r) {
  return {Kind::kDebugWaiting, FieldWriter().integer(r.pid).bytes()};
}
Frame toFrame(const StackDumpedRecord&) { return {Kind::kStackDumped, {}}; }
Frame toFrame(const FinishedRecord& r) {
  return {Kind::kFinished, FieldWriter().integer(r.code).bytes()};
}
Frame toFrame(const RunRecord& r) {
  return {Kind::kRun, FieldWriter().text(r.test).integer(r.sequence).bytes()};
}

RankException malformed(const std::string& why) {
  return {"ranktest::MalformedRecord",
          "the rank sent a record that does not decode: " + why};
}

ResultRecord readResult(Kind kind, FieldReader& in) {
  switch (kind) {
    case Kind::kFailure: {
      RankFailure failure;
      failure.file = in.text();
      failure.line = static_cast<int>(in.integer(0, kIntFieldMax));
      failure.message = in.text();
      return failure;
    }
    case Kind::kSkip: {
      const auto code = static_cast<SkipCode>(in.integer(0, 255));
      return Skip{code, in.text()};
    }
    case Kind::kException: {
      RankException exception;
      exception.type = in.text();
      exception.message = in.text();
      return exception;
    }
    case Kind::kDebugWaiting:
      return DebugWaitingRecord{static_cast<int>(in.integer(1, kIntFieldMax))};
    case Kind::kStackDumped:
      return StackDumpedRecord{};
    case Kind::kFinished:
      return FinishedRecord{
          static_cast<int>(in.integer(-kIntFieldMax, kIntFieldMax))};
    default:
      return malformed("unknown record kind " +
                       std::to_string(static_cast<std::uint32_t>(kind)));
  }
}

// Decodes a result frame; one that does not decode becomes an exception
// report, so that the test fails saying so instead of losing the record.
ResultRecord decodeResult(const Frame& frame) {
  try {
    FieldReader in(frame.payload,
                   "record kind " +
                       std::to_string(static_cast<std::uint32_t>(frame.kind)));
    ResultRecord record = readResult(frame.kind, in);
    in.expectEnd();
    return record;
  } catch (const std::invalid_argument& error) {
    return malformed(error.what());
  }
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
  std::string out;
  appendU32(out, static_cast<std::uint32_t>(frame.kind));
  appendU32(out, static_cast<std::uint32_t>(frame.payload.size()));
  return out + frame.payload;
}

// A whole frame (header included) as its kind and payload.
Frame decodeFrame(const char* data, std::size_t size) {
  return {static_cast<Kind>(readU32(data)),
          std::string(data + kHeaderSize, size - kHeaderSize)};
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
  const Frame frame = decodeFrame(buffer_.data(), size);
  buffer_.erase(0, size);
  return decodeResult(frame);
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
  const Frame frame = decodeFrame(bytes.data(), bytes.size());
  if (frame.kind != Kind::kRun) return std::nullopt;
  try {
    FieldReader in(frame.payload, "a command to a reused worker");
    RunRecord run;
    run.test = in.text();
    run.sequence =
        static_cast<long>(in.integer(0, std::numeric_limits<long>::max()));
    in.expectEnd();
    return run;
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

}  // namespace ranktest::internal
