#pragma once

// Hang notes: text a rank prints with its stack when the parent asks for it
// at the deadline, or when the rank crashes. They say what the rank waits
// for in words its stack cannot give (which hook, which bucket, since when).
// The table is lock-free: notes are added and removed from any thread, and
// read from a signal handler.
//
// Example:
//   const std::uint64_t note = ranktest::addHangNote(
//       "rank 1: waiting {age} for the checkpoint writer");
//   ... wait ...
//   ranktest::removeHangNote(note);

#include <cstdint>
#include <string_view>

namespace ranktest {

// At most this many notes are held at once; more are dropped (and counted).
inline constexpr int kMaxHangNotes = 64;
// Longer texts are cut to this many bytes.
inline constexpr int kMaxHangNoteBytes = 255;

// Adds a note; "{age}" in `text` is printed as the time since it was added
// ("60.0 s"). Returns its id, 0 when the table is full.
std::uint64_t addHangNote(std::string_view text);

// Removes the note `id`; 0 and ids already removed are ignored.
void removeHangNote(std::uint64_t id);

}  // namespace ranktest

// The same two calls with C linkage, for a library that must not depend on
// ranktest: it declares them weak and calls them only where they are defined
// (linked into every ranktest binary). distalgo does so for its hooks.
extern "C" std::uint64_t ranktest_add_hang_note(const char* text);
extern "C" void ranktest_remove_hang_note(std::uint64_t id);
