#pragma once

// Every key the harness reads or writes in a store, spelled here once: the
// schema of a launched job's store (under an attempt's prefix where
// torchrun restarts the job, attempt_store.h), and the prefix of a reused
// pool's per-test groups.
//
//   ranktest/job                      the job that claimed the store
//   ranktest/host/R                   rank R's address toward rank 0
//   ranktest/where/R                  "host h (address), pid p" of rank R
//   ranktest/phase/R                  what rank R did last
//   ranktest/beat/R                   rank R's heartbeat counter
//   ranktest/ask/R                    questions to rank R ("where are you")
//   ranktest/answer/R/Q               rank R's answer to question Q
//   ranktest/lost                     "<rank>\n<test>": the job gave up on it
//   ranktest/disagreement             ranks found at different tests
//   ranktest/N/name/R                 distributed test #N+1 as rank R has it
//   ranktest/N/skip/R, N/report/R     rank R's skip decision and report
//   ranktest/N/abort                  set by the first rank that failed
//   ranktest/N/group/...              the test's own process group
//   ranktest/tests_over/R             rank R's run has no test left
//   ranktest/exit_code/R              the job's exit code, for rank R
//   ranktest/done/R                   rank R read its exit code
//   ranktest/end_rank/R[/done]        rank R's sentinel is to end it
//   ranktest/N (rendezvous store)     a reused pool's group for test N
//   attempt_A/...                     every key above, in torchrun's
//                                     attempt A of a restarted job

#include <cstdint>
#include <string>

namespace ranktest::internal::keys {

inline std::string perRank(const char* what, int rank) {
  return std::string("ranktest/") + what + "/" + std::to_string(rank);
}

inline std::string job() { return "ranktest/job"; }
inline std::string host(int rank) { return perRank("host", rank); }
inline std::string where(int rank) { return perRank("where", rank); }
inline std::string phase(int rank) { return perRank("phase", rank); }
inline std::string beat(int rank) { return perRank("beat", rank); }
inline std::string ask(int rank) { return perRank("ask", rank); }
inline std::string answer(int rank, std::int64_t question) {
  return perRank("answer", rank) + "/" + std::to_string(question);
}
inline std::string lost() { return "ranktest/lost"; }
inline std::string disagreement() { return "ranktest/disagreement"; }

// The prefix of the keys of the job's distributed test #(sequence + 1).
inline std::string test(int sequence) {
  return "ranktest/" + std::to_string(sequence) + "/";
}
inline std::string testOfRank(int sequence, const std::string& what, int rank) {
  return test(sequence) + what + "/" + std::to_string(rank);
}
inline std::string testName(int sequence, int rank) {
  return testOfRank(sequence, "name", rank);
}
inline std::string testAbort(int sequence) { return test(sequence) + "abort"; }
inline std::string testGroup(int sequence) { return test(sequence) + "group/"; }

inline std::string testsOver(int rank) { return perRank("tests_over", rank); }
inline std::string exitCode(int rank) { return perRank("exit_code", rank); }
inline std::string done(int rank) { return perRank("done", rank); }
inline std::string endRank(int rank) { return perRank("end_rank", rank); }
inline std::string endRankDone(int rank) { return endRank(rank) + "/done"; }

// The prefix of every key of torchrun's attempt `restart_count` of the job.
inline std::string attempt(int restart_count) {
  return "attempt_" + std::to_string(restart_count);
}

// A reused pool's group for its test `sequence` (a PrefixStore's prefix on
// the pool's rendezvous store).
inline std::string pooledGroup(long sequence) {
  return "ranktest/" + std::to_string(sequence);
}

}  // namespace ranktest::internal::keys
