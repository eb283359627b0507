#pragma once

// A rank's stdout and stderr as the parent reads them: split into lines, the
// last few kept for the report, and a stack the rank printed between the
// markers of rank_signals.h lifted out into the report's stack, demangled,
// with file:line where known (stack_symbols.h) and the harness's and
// googletest's own frames cut.

#include <cstddef>
#include <deque>
#include <string>
#include <vector>

#include "verdict/stack_symbols.h"

namespace ranktest::internal {

class RankOutput {
 public:
  // `echo`: also print each line live as "[rank N] ...".
  RankOutput(int rank, std::size_t tail_lines, bool echo);

  // Bytes as read from the pipe, in any chunks.
  void append(const char* data, std::size_t size);
  // End of the stream: a last line without a newline still counts.
  void endOfStream();
  // The report is being written: the stack's frames are symbolized now, and
  // a stack still open was cut short.
  void close();

  std::deque<std::string>& tail() { return tail_; }
  std::vector<std::string>& stack() { return stack_; }

 private:
  void addLine(const std::string& line);
  void addStackLine(const std::string& line);
  // The stack's frames, symbolized and trimmed, onto stack_.
  void appendFrames();

  int rank_;
  std::size_t tail_lines_;
  bool echo_;
  std::string partial_line_;
  bool in_stack_ = false;
  std::vector<RawFrame> frames_;  // of the last stack, as the rank wrote them
  std::deque<std::string> tail_;  // "[rank N] " prefixed
  std::vector<std::string> stack_;
};

}  // namespace ranktest::internal
