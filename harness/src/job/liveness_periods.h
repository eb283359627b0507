#pragma once

// The liveness of a launched rank, in one table: who watches what, and how
// often. A peer is given up on once its beat has not moved for the peer
// silence (a setting: RANKTEST_PEER_SILENCE, 10 s by default).
//
//   who                        what it does                          period
//   state responder (thread)   beats (keys::beat), answers "where    kBeat
//                              are you" (keys::ask/answer), ends the
//                              main thread's waits for silent peers
//   store watchdog (thread)    gives up on a store silent for the    kWatch
//                              peer silence; stops the rank as if
//                              interrupted once its launcher is gone
//   sentinel (process)         serves the job's store where rank 0's kSentinel
//                              does; ends its rank when the job gave
//                              up on it, or when it stays stopped
//                              kStoppedBeyondSilence past the silence

#include <chrono>

namespace ranktest::internal::liveness {

inline constexpr std::chrono::milliseconds kBeat{200};
inline constexpr std::chrono::milliseconds kWatch{100};
inline constexpr std::chrono::milliseconds kSentinel{300};
inline constexpr std::chrono::seconds kStoppedBeyondSilence{5};

}  // namespace ranktest::internal::liveness
