#include "process/rank_output.h"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "rank/rank_signals.h"

namespace ranktest::internal {
namespace {

// "bin(_ZN3foo3barEv+0x1f) [0x4005]" -> "bin(foo::bar()+0x1f) [0x4005]".
std::string demangleFrame(const std::string& line) {
  const std::size_t open = line.find("(_Z");
  if (open == std::string::npos) return line;
  const std::size_t end = line.find_first_of("+)", open);
  if (end == std::string::npos) return line;
  const std::string mangled = line.substr(open + 1, end - open - 1);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> plain(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
      std::free);
  if (status != 0 || !plain) return line;
  return line.substr(0, open + 1) + plain.get() + line.substr(end);
}

}  // namespace

RankOutput::RankOutput(int rank, std::size_t tail_lines, bool echo)
    : rank_(rank), tail_lines_(tail_lines), echo_(echo) {}

void RankOutput::append(const char* data, std::size_t size) {
  partial_line_.append(data, size);
  std::size_t newline;
  while ((newline = partial_line_.find('\n')) != std::string::npos) {
    addLine(partial_line_.substr(0, newline));
    partial_line_.erase(0, newline + 1);
  }
}

void RankOutput::endOfStream() {
  if (!partial_line_.empty()) addLine(partial_line_);
  partial_line_.clear();
}

void RankOutput::close() {
  if (stack_.empty()) return;
  // Symbolized only now, once the ranks are over: addr2line takes a few
  // tenths of a second, which the supervisor's poll loop must not wait for.
  std::vector<std::string> stack = std::move(stack_);
  stack_ = {stack.front()};
  appendFrames();
  stack_.push_back(in_stack_ ? "(stack cut short)" : stack.back());
  in_stack_ = false;
}

void RankOutput::addLine(const std::string& line) {
  // A stack marker may follow an unterminated line of the rank's own.
  const std::size_t marker = line.find(kStackBeginMarker);
  if (marker != std::string::npos && marker > 0) {
    addLine(line.substr(0, marker));
    addLine(line.substr(marker));
    return;
  }
  if (echo_) {
    std::fprintf(stdout, "[rank %d] %s\n", rank_, line.c_str());
    std::fflush(stdout);
  }
  if (marker == 0) {
    in_stack_ = true;
    stack_.clear();
    frames_.clear();
    stack_.push_back(line);
    return;
  }
  if (in_stack_) {
    addStackLine(line);
    return;
  }
  tail_.push_back("[rank " + std::to_string(rank_) + "] " + line);
  while (tail_.size() > tail_lines_) tail_.pop_front();
}

void RankOutput::addStackLine(const std::string& line) {
  if (line.rfind(kStackEndMarker, 0) == 0) {
    in_stack_ = false;
    stack_.push_back(line);
    return;
  }
  RawFrame frame = parseFrame(line);
  frame.text = demangleFrame(frame.text);
  frames_.push_back(std::move(frame));
}

// Frames from the harness's rank runner downwards are the same in every
// report, and googletest's own say nothing about the test: both are cut.
void RankOutput::appendFrames() {
  static const std::string executable = ownExecutable();
  for (const std::string& frame : symbolizeFrames(frames_, executable)) {
    if (frame.find("ranktest::internal::RankRunner::run") !=
        std::string::npos) {
      stack_.push_back("(ranktest frames below)");
      break;
    }
    if (frame.find("testing::internal::") != std::string::npos) continue;
    stack_.push_back(frame);
  }
  frames_.clear();
}

}  // namespace ranktest::internal
