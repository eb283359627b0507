#include "harness_overhead/board.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "harness_overhead/temp_file.h"

namespace harness_overhead {
namespace {

// How the parent tells ranks where the board is: the environment reaches
// forked, spawned and reused ranks alike.
constexpr char kBoardEnv[] = "RANKTEST_BENCH_BOARD";

}  // namespace

void stampBoard(int rank, const Slot& slot) {
  const char* path = std::getenv(kBoardEnv);
  if (path == nullptr || rank < 0 || rank >= kMaxRanks) return;
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  const off_t offset = static_cast<off_t>(rank) * sizeof(Slot);
  if (::pwrite(fd, &slot, sizeof(slot), offset) != sizeof(slot)) {
    std::fprintf(stderr, "[bench] rank %d could not stamp the board\n", rank);
  }
  ::close(fd);
}

void BoardFile::create() {
  fd_ = createTempFile("ranktest-bench", O_CLOEXEC, &path_);
  if (fd_ < 0) {
    std::perror("[bench] mkostemp");
    std::exit(1);
  }
  ::setenv(kBoardEnv, path_.c_str(), 1);
  clear();
}

void BoardFile::clear() {
  const Board empty{};
  if (::pwrite(fd_, empty.data(), sizeof(empty), 0) != sizeof(empty)) {
    std::perror("[bench] clearing the board");
  }
}

Board BoardFile::read() const {
  Board board{};
  if (::pread(fd_, board.data(), sizeof(board), 0) != sizeof(board)) {
    board = Board{};
  }
  return board;
}

void BoardFile::remove() {
  if (fd_ < 0) return;
  ::close(fd_);
  ::unlink(path_.c_str());
  fd_ = -1;
}

}  // namespace harness_overhead
