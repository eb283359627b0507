#pragma once

// What a launched job's ranks put in its store besides their reports and
// skip decisions (wire/report_codec.h): the marks the responder's thread sets
// where a wait ended without the peer's value, bytes and text, and the periods
// the test round waits for.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ranktest/test_options.h"

namespace ranktest::internal {

// How long an interrupted rank waits for the others' reports.
inline constexpr std::chrono::seconds kInterruptedReportWait{2};

// How long a rank waits for its responder's poll to end before it forks a
// test's process (a poll takes milliseconds unless the store is silent).
inline constexpr std::chrono::seconds kForkPauseLimit{1};

// What the responder's thread sets an awaited key to where the wait is over
// without the peer's value (never a value of the job's own).
inline constexpr char kMarkLate[] = "\x01ranktest: late";
inline constexpr char kMarkSilent[] = "\x01ranktest: silent";
inline constexpr char kMarkJobGaveUp[] =
    "\x01ranktest: the job gave up on a rank";
// The interrupted rank's number follows: the key may be shared, and the
// others were not interrupted.
inline constexpr char kMarkInterrupted[] = "\x01ranktest: interrupted in rank ";
// Set on every rank's host key by a process that found its rank claimed by
// another, the refusal following: the job cannot form.
inline constexpr char kMarkRankClaimedTwice[] = "\x01ranktest: claimed twice: ";

inline std::string toText(const std::vector<uint8_t>& bytes) {
  return std::string(bytes.begin(), bytes.end());
}

inline std::vector<uint8_t> toBytes(const std::string& text) {
  return std::vector<uint8_t>(text.begin(), text.end());
}

}  // namespace ranktest::internal
