#pragma once

// The two channels between the parent and a rank, both framed records on a
// pipe: results (rank -> parent) and, for a reused worker, commands (parent ->
// rank). One struct per record kind; this file and record.cpp are the only
// places that know how a record is laid out. A rank that dies writes no
// FinishedRecord, which is how the parent tells a crash or an early exit from
// a finished body.

#include <optional>
#include <string>
#include <variant>

#include "ranktest/test_options.h"
#include "wire/rank_report.h"

namespace ranktest::internal {

// The rank is stopped (SIGSTOP) until a debugger, or SIGCONT, resumes it.
struct DebugWaitingRecord {
  int pid = 0;
};

// The stack asked for at the deadline is on the rank's stderr.
struct StackDumpedRecord {};

// The body is over; `code` is the exit code the rank reports for the test.
struct FinishedRecord {
  int code = 0;
};

// A failed assertion (RankFailure), a skip (Skip), an exception that left the
// body (RankException), or one of the records above.
using ResultRecord =
    std::variant<RankFailure, Skip, RankException, DebugWaitingRecord,
                 StackDumpedRecord, FinishedRecord>;

// Parent -> reused worker: run the test named `test`, on the process group
// built ahead for `sequence`.
struct RunRecord {
  std::string test;
  long sequence = 0;
};

// Writes the whole record with one write() loop (several threads of a rank
// may report at once); false if the reader is gone.
bool sendResult(int fd, const ResultRecord& record);

// Async-signal-safe: sends a StackDumpedRecord.
void sendStackDumpedFromSignalHandler(int fd);

// Reassembles result records from arbitrary chunks of the byte stream. A
// record that does not decode comes out as a RankException of type
// "ranktest::MalformedRecord" that says what was wrong.
class ResultReader {
 public:
  void feed(const char* data, std::size_t size);
  std::optional<ResultRecord> next();

 private:
  std::string buffer_;
};

bool sendRun(int fd, const RunRecord& record);

// Blocks for the next command; nullopt at end of file or on a record that is
// not a well-formed RunRecord.
std::optional<RunRecord> receiveRun(int fd);

}  // namespace ranktest::internal
