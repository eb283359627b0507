#pragma once

// The result channel between a rank and the parent: small framed records on a
// pipe. A rank that dies writes no kFinished record, which is how the parent
// tells a crash or an early exit from a finished body.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ranktest::internal {

enum class RecordType : std::uint32_t {
  kStarted = 1,       // pid: the body is about to run
  kFailure = 2,       // file, line, message, fatal ("1"/"0")
  kSkip = 3,          // code, message
  kException = 4,     // type, message
  kDebugWaiting = 5,  // pid: stopped until a debugger (or SIGCONT) resumes it
  kStackDumped = 6,   // the stack requested at the deadline is on stderr
  kFinished = 7,      // exit code the rank reports for this test
  kRun = 8,           // parent -> reused worker: full test name, sequence
};

struct Record {
  RecordType type;
  std::vector<std::string> fields;
};

// Writes the whole record with one write() loop; returns false if the reader
// is gone.
bool writeRecord(int fd, const Record& record);

// Async-signal-safe: writes a record without fields.
void writeEmptyRecordFromSignalHandler(int fd, RecordType type);

// Reassembles records from arbitrary chunks of the byte stream.
class RecordReader {
 public:
  void feed(const char* data, std::size_t size);
  std::optional<Record> next();

 private:
  std::string buffer_;
};

// Reads one record, blocking; nullopt at end of file.
std::optional<Record> readRecordBlocking(int fd);

}  // namespace ranktest::internal
