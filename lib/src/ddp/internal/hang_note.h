#pragma once

// Notes on what a rank waits for, for the test harness that runs it: the
// ranktest harness prints them with a hung or crashed rank's stack
// (ranktest/hang_notes.h). distalgo ships without ranktest, so it calls the
// harness only where a program links it; elsewhere these do nothing.

#include <cstdint>
#include <string>

namespace distalgo::ddp::internal {

// Adds a note ("{age}" in it reads as the time since); returns its id, 0
// when no harness is linked or its table is full.
std::uint64_t addHangNote(const std::string& text);

// Removes note `id`; 0 and ids already removed are ignored.
void removeHangNote(std::uint64_t id);

// A note held while it lives.
class ScopedHangNote {
 public:
  explicit ScopedHangNote(const std::string& text) : id_(addHangNote(text)) {}
  ~ScopedHangNote() { removeHangNote(id_); }
  ScopedHangNote(const ScopedHangNote&) = delete;
  ScopedHangNote& operator=(const ScopedHangNote&) = delete;

 private:
  std::uint64_t id_;
};

}  // namespace distalgo::ddp::internal
