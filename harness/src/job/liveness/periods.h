#pragma once

// The liveness of a launched rank, in one table (this folder holds the
// three): who watches what, and how often. A peer is given up on once its
// beat has not moved for the peer silence (a setting:
// RANKTEST_PEER_SILENCE, 10 s by default).
//
//   who (file)                  what it does                       period
//   heartbeat thread            beats (keys::beat), answers "where kBeat
//     (heartbeat_thread.h)      are you" (keys::ask/answer), ends
//                               the main thread's waits for silent
//                               peers
//   store silence watch         gives up on a store silent for the kWatch
//     (store_silence_watch.h)   peer silence; stops the rank as if
//                               interrupted once its launcher is
//                               gone
//   sentinel (sentinel.h,       serves the job's store where rank  kSentinel
//     a process)                0's does; ends its rank when the
//                               job gave up on it, or when it stays
//                               stopped kStoppedBeyondSilence past
//                               the silence

#include <chrono>

namespace ranktest::internal::liveness {

inline constexpr std::chrono::milliseconds kBeat{200};
inline constexpr std::chrono::milliseconds kWatch{100};
inline constexpr std::chrono::milliseconds kSentinel{300};
inline constexpr std::chrono::seconds kStoppedBeyondSilence{5};

}  // namespace ranktest::internal::liveness
