#pragma once

// File and line for the frames of a rank's stack. A rank writes each frame
// inside its executable with a "exe+0x<offset>" token in front of the
// frame's text (rank_signals.cpp); the parent resolves the offsets after the
// fact with binutils' addr2line on the same executable (the ranks run the
// parent's own binary), one addr2line run per stack.

#include <string>
#include <vector>

namespace ranktest::internal {

// The token that starts a frame line inside the executable.
inline constexpr char kExeFrameToken[] = "exe+0x";

// One frame as the rank wrote it.
struct RawFrame {
  std::string text;  // backtrace_symbols' line, token removed, demangled
  long offset = -1;  // in the executable; -1: another module (or none)
};

// Splits a frame line into its token's offset and its text.
RawFrame parseFrame(const std::string& line);

// The frames as report lines: "function at file:line" (one line per inlined
// call, innermost first) where addr2line knows the file, else the frame's
// text. `exe`: the executable the offsets belong to; "" or an addr2line that
// fails leaves every frame as it was written.
std::vector<std::string> symbolizeFrames(const std::vector<RawFrame>& frames,
                                         const std::string& exe);

// The path of this process's executable ("" if unknown).
std::string ownExecutable();

}  // namespace ranktest::internal
