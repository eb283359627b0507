#pragma once

// Signal handling inside a rank: on the parent's request (at the deadline) and
// on a crash, the rank prints its stack to stderr between two marker lines
// that the parent lifts into its report.

#include <csignal>

namespace ranktest::internal {

// The signal the parent sends to ask a rank for its stack.
int stackRequestSignal();

// Marker lines around a stack printed by a rank (prefixes; the rest of the
// line names the rank and the reason).
inline constexpr char kStackBeginMarker[] = "[ranktest] stack of rank ";
inline constexpr char kStackEndMarker[] = "[ranktest] end of stack";

// Installs the stack-request and crash handlers for rank `rank`.
void installRankSignalHandlers(int rank);

// Prints a stack (innermost frame first) between the markers, async-signal
// safely. Every frame but `exact_frame` is a return address; -1: none is.
void printStack(const char* reason, void* const* frames, int count,
                int exact_frame = -1);

}  // namespace ranktest::internal
