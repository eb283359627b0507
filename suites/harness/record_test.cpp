// The parent <-> rank record channels: every kind arrives as it was sent,
// whatever the chunking of the pipe, and a record that does not decode is
// reported, never dropped.

#include "wire/record.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "wire/fields.h"

namespace harness_suite {
namespace {

using ranktest::Skip;
using ranktest::SkipCode;
using namespace ranktest::internal;

struct Pipe {
  Pipe() { EXPECT_EQ(::pipe(fds), 0); }
  ~Pipe() {
    ::close(fds[0]);
    if (fds[1] >= 0) ::close(fds[1]);
  }
  // Everything written so far, once the write end is closed.
  std::string drain() {
    ::close(fds[1]);
    fds[1] = -1;
    std::string bytes;
    char chunk[256];
    ssize_t n;
    while ((n = ::read(fds[0], chunk, sizeof(chunk))) > 0)
      bytes.append(chunk, n);
    return bytes;
  }
  int fds[2];
};

// Feeds `bytes` one at a time: a record may arrive in any number of reads.
std::vector<ResultRecord> readAll(const std::string& bytes) {
  ResultReader reader;
  std::vector<ResultRecord> out;
  for (char byte : bytes) {
    reader.feed(&byte, 1);
    while (auto record = reader.next()) out.push_back(*record);
  }
  return out;
}

// A frame as the layout in record.cpp has it, for records no writer sends.
std::string rawFrame(std::uint32_t kind,
                     const std::vector<std::string>& fields) {
  auto u32 = [](std::uint32_t v) {
    return std::string(reinterpret_cast<const char*>(&v), sizeof(v));
  };
  ranktest::internal::FieldWriter payload;
  for (const std::string& f : fields) payload.text(f);
  return u32(kind) + u32(payload.bytes().size()) + payload.bytes();
}

TEST(HarnessRecords, EveryResultKindArrivesAsSent) {
  Pipe pipe;
  const std::string multi_line = "Expected equality\n  a: 1\n  b: 2";
  ASSERT_TRUE(sendResult(pipe.fds[1], RankFailure{"t.cpp", 42, multi_line}));
  ASSERT_TRUE(sendResult(pipe.fds[1], Skip{SkipCode::kNcclMissing, "no nccl"}));
  ASSERT_TRUE(sendResult(pipe.fds[1], RankException{"std::runtime_error", ""}));
  ASSERT_TRUE(sendResult(pipe.fds[1], DebugWaitingRecord{1234}));
  sendStackDumpedFromSignalHandler(pipe.fds[1]);
  ASSERT_TRUE(sendResult(pipe.fds[1], FinishedRecord{76}));

  const std::vector<ResultRecord> got = readAll(pipe.drain());
  ASSERT_EQ(got.size(), 6u);
  const auto& failure = std::get<RankFailure>(got[0]);
  EXPECT_EQ(failure.file, "t.cpp");
  EXPECT_EQ(failure.line, 42);
  EXPECT_EQ(failure.message, multi_line);
  EXPECT_EQ(std::get<Skip>(got[1]).code, SkipCode::kNcclMissing);
  EXPECT_EQ(std::get<Skip>(got[1]).message, "no nccl");
  EXPECT_EQ(std::get<RankException>(got[2]).type, "std::runtime_error");
  EXPECT_EQ(std::get<RankException>(got[2]).message, "");
  EXPECT_EQ(std::get<DebugWaitingRecord>(got[3]).pid, 1234);
  EXPECT_TRUE(std::holds_alternative<StackDumpedRecord>(got[4]));
  EXPECT_EQ(std::get<FinishedRecord>(got[5]).code, 76);
}

TEST(HarnessRecords, RecordThatDoesNotDecodeIsReportedNotDropped) {
  const std::string bytes = rawFrame(7, {"seventy"}) +     // Finished, bad code
                            rawFrame(99, {}) +             // unknown kind
                            rawFrame(2, {"t.cpp", "1"}) +  // failure, 2 of 3
                            rawFrame(7, {"0"});
  const std::vector<ResultRecord> got = readAll(bytes);
  ASSERT_EQ(got.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    const auto* error = std::get_if<RankException>(&got[i]);
    ASSERT_NE(error, nullptr) << "record " << i;
    EXPECT_EQ(error->type, "ranktest::MalformedRecord");
  }
  EXPECT_NE(
      std::get<RankException>(got[1]).message.find("unknown record kind 99"),
      std::string::npos);
  EXPECT_EQ(std::get<FinishedRecord>(got[3]).code, 0)
      << "later records still count";
}

TEST(HarnessRecords, RunCommandsArriveOneAtATimeUntilEndOfFile) {
  Pipe pipe;
  ASSERT_TRUE(sendRun(pipe.fds[1], RunRecord{"Suite.Test/gloo_ws2", 0}));
  ASSERT_TRUE(sendRun(pipe.fds[1], RunRecord{"Suite.Other/gloo_ws2", 7}));
  ::close(pipe.fds[1]);
  pipe.fds[1] = -1;
  const auto first = receiveRun(pipe.fds[0]);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->test, "Suite.Test/gloo_ws2");
  EXPECT_EQ(first->sequence, 0);
  const auto second = receiveRun(pipe.fds[0]);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->test, "Suite.Other/gloo_ws2");
  EXPECT_EQ(second->sequence, 7);
  EXPECT_FALSE(receiveRun(pipe.fds[0]).has_value());
}

TEST(HarnessRecords, ResultRecordOnTheCommandChannelEndsTheWorker) {
  Pipe pipe;
  ASSERT_TRUE(sendResult(pipe.fds[1], FinishedRecord{0}));
  ::close(pipe.fds[1]);
  pipe.fds[1] = -1;
  EXPECT_FALSE(receiveRun(pipe.fds[0]).has_value());
}

}  // namespace
}  // namespace harness_suite
