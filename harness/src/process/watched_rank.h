#pragma once

// The parent's end of one rank's channels during one test: its output
// (RankOutput) and its result records (record.h), folded into its RankReport
// as they arrive. The supervisor decides what to do with what it learns.

#include "process/rank_output.h"
#include "process/rank_process.h"
#include "wire/rank_report.h"
#include "wire/record.h"

namespace ranktest::internal {

struct WatchedRank {
  // `reused`: a worker that finishes a test with a FinishedRecord and stays
  // alive; a one-shot rank finishes by exiting.
  WatchedRank(RankProcess* process, std::size_t tail_lines, bool echo,
              bool reused);

  // Read what the pipes hold now, without blocking.
  void readOutput();
  void readRecords();

  // The report, with the output's tail and stack; call once, at the end.
  RankReport takeReport();

  RankProcess* process;
  RankReport report;
  RankOutput output;
  ResultReader results;
  bool reused;
  bool finished = false;         // FinishedRecord received
  bool stack_dumped = false;     // StackDumpedRecord received
  bool awaits_debugger = false;  // DebugWaitingRecord received
  bool output_eof = false;
  bool result_eof = false;
  bool resolved = false;  // its part of the test is over

 private:
  void handle(const RankFailure& r) {
    report.noteFailure();
    report.failures.push_back(r);
  }
  void handle(const Skip& r) { report.skip = r; }
  void handle(const RankException& r) {
    report.noteFailure();
    report.exceptions.push_back(r);
  }
  void handle(const DebugWaitingRecord& r);
  void handle(const StackDumpedRecord&) { stack_dumped = true; }
  void handle(const FinishedRecord& r);
};

}  // namespace ranktest::internal
