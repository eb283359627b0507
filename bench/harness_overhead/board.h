#pragma once

// The board: a small file on which every rank stamps its progress through a
// test, one fixed-size slot per rank. Ranks are separate processes (forked,
// exec'ed or reused), so a file is the one place all of them and the parent
// can reach without touching the harness's own channels.

#include <array>
#include <cstdint>
#include <string>

namespace harness_overhead {

inline constexpr int kMaxRanks = 64;

// What one rank stamps (steady_clock ns; 0: not reached).
struct Slot {
  std::int64_t pid = 0;
  std::int64_t alive_ns = 0;
  std::int64_t pg_ready_ns = 0;
  std::int64_t body_start_ns = 0;
  std::int64_t body_end_ns = 0;
  std::int64_t done_ns = 0;
};
using Board = std::array<Slot, kMaxRanks>;

// From a rank: writes its slot with one pwrite, on the board the parent named
// in the environment.
void stampBoard(int rank, const Slot& slot);

// The parent's side: created before the tests, cleared at each test's start,
// read at its end.
class BoardFile {
 public:
  // Exits the process when the file cannot be created: nothing could be
  // measured.
  void create();
  void clear();
  Board read() const;
  void remove();

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace harness_overhead
