#include "verdict/stack_symbols.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>

#include "process/program.h"
#include "wire/number_text.h"

namespace ranktest::internal {
namespace {

// The largest offset in an executable a frame may name.
constexpr std::int64_t kMostOffset = std::numeric_limits<long>::max();

// addr2line may take long on a large binary's debug information: a report
// waits this long for names, then shows the frames unnamed.
constexpr std::chrono::seconds kSymbolizerLimit{30};

// addr2line's stdout for `addresses` in `exe`; "" if it could not run, failed
// or took past kSymbolizerLimit.
std::string runAddr2line(const std::string& exe,
                         const std::vector<std::string>& addresses) {
  const std::string addr2line = findExecutable("addr2line");
  if (addr2line.empty()) return "";
  ProgramCall call;
  call.executable = addr2line;
  call.arguments = {"addr2line", "-a", "-f", "-C", "-i", "-e", exe};
  call.arguments.insert(call.arguments.end(), addresses.begin(),
                        addresses.end());
  // Its complaints (no debug information) are not the report's.
  call.child_setup = [](int) {
    const int devnull = ::open("/dev/null", O_WRONLY);
    if (devnull >= 0) ::dup2(devnull, STDERR_FILENO);
  };
  try {
    const ProgramRun run = runProgram(call, kSymbolizerLimit);
    return run.exit_code == 0 ? run.output : "";
  } catch (const std::exception&) {
    return "";
  }
}

// addr2line -a -f -C -i: per address, "0x<address>" then pairs of lines,
// function and file:line, innermost inlined call first.
std::map<long, std::vector<std::string>> parseAddr2line(
    const std::string& output) {
  std::map<long, std::vector<std::string>> lines_of;
  std::istringstream in(output);
  std::string line;
  std::vector<std::string>* current = nullptr;
  std::string function;
  bool expect_function = true;
  while (std::getline(in, line)) {
    if (line.rfind("0x", 0) == 0) {
      const std::optional<std::int64_t> address =
          parseInteger(std::string_view(line).substr(2), 0, kMostOffset, 16);
      current = address ? &lines_of[static_cast<long>(*address)] : nullptr;
      expect_function = true;
      continue;
    }
    if (current == nullptr) continue;
    if (expect_function) {
      function = line;
    } else if (line.rfind("??", 0) != 0) {
      // "file:line" or "file:line (discriminator N)".
      current->push_back(function + " at " + line.substr(0, line.find(' ')));
    }
    expect_function = !expect_function;
  }
  return lines_of;
}

}  // namespace

RawFrame parseFrame(const std::string& line) {
  RawFrame frame;
  frame.text = line;
  if (line.rfind(kExeFrameToken, 0) != 0) return frame;
  const std::size_t start = sizeof(kExeFrameToken) - 1;
  const std::size_t space = line.find(' ', start);
  const std::optional<std::int64_t> offset = parseInteger(
      std::string_view(line).substr(start, space - start), 0, kMostOffset, 16);
  if (offset) frame.offset = static_cast<long>(*offset);
  frame.text = space == std::string::npos ? "" : line.substr(space + 1);
  return frame;
}

std::vector<std::string> symbolizeFrames(const std::vector<RawFrame>& frames,
                                         const std::string& exe) {
  std::vector<std::string> addresses;
  for (const RawFrame& f : frames) {
    if (f.offset >= 0) {
      std::ostringstream hex;
      hex << "0x" << std::hex << f.offset;
      addresses.push_back(hex.str());
    }
  }
  std::map<long, std::vector<std::string>> lines_of;
  if (!exe.empty() && !addresses.empty()) {
    lines_of = parseAddr2line(runAddr2line(exe, addresses));
  }
  std::vector<std::string> out;
  for (const RawFrame& f : frames) {
    const auto found = f.offset >= 0 ? lines_of.find(f.offset) : lines_of.end();
    if (found == lines_of.end() || found->second.empty()) {
      out.push_back(f.text);
      continue;
    }
    for (const std::string& line : found->second) out.push_back(line);
  }
  return out;
}

std::string ownExecutable() {
  char path[4096];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof(path) - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : "";
}

}  // namespace ranktest::internal
