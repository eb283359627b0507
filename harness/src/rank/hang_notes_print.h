#pragma once

// The rank's side of ranktest/hang_notes.h: printing the notes held.

namespace ranktest::internal {

// Writes one line per note held to stderr, "[ranktest] pending <when>: <note>",
// async-signal safely (no lock, no allocation); `when` says why, e.g. "at the
// deadline". Prints nothing when no note is held.
void printHangNotes(const char* when);

}  // namespace ranktest::internal
