#include "verdict/stack_folding.h"

#include <cstring>

namespace ranktest::internal {
namespace {

// Frames longer than this have their template arguments shortened.
constexpr std::size_t kLongFrame = 160;
// Template argument lists up to this long stay as they are.
constexpr std::size_t kShortArguments = 24;

bool contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

bool startsWith(const std::string& text, const char* prefix) {
  return text.compare(0, std::strlen(prefix), prefix) == 0;
}

std::string basename(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Where libraries are installed, not where anyone's sources are.
bool inLibraryLocation(const std::string& path) {
  return startsWith(path, "/usr/") || startsWith(path, "/lib/") ||
         startsWith(path, "/lib64/") || startsWith(path, "/opt/") ||
         contains(path, "/site-packages/") || contains(path, "/dist-packages/");
}

bool isRuntimeLibrary(const std::string& name) {
  static const char* const kRuntime[] = {
      "libtorch", "libc10",      "libgloo",  "libstdc++", "libc.so",
      "libc-",    "libm.so",     "libgcc_s", "ld-linux",  "libpthread",
      "libgomp",  "libnccl",     "libcuda",  "libcublas", "libshm",
      "libdl.so", "libprotobuf", "libomp"};
  for (const char* prefix : kRuntime) {
    if (startsWith(name, prefix)) return true;
  }
  return false;
}

// The header's library for a resolved "function at file:line" frame.
std::string headerLibrary(const std::string& file) {
  if (contains(file, "/include/c++/")) return "libstdc++";
  if (!inLibraryLocation(file)) return "";
  const std::size_t include = file.rfind("/include/");
  if (include == std::string::npos) return basename(file) + " (library)";
  const std::size_t start = include + std::strlen("/include/");
  const std::size_t slash = file.find('/', start);
  if (slash == std::string::npos) return "system headers";
  return file.substr(start, slash - start) + " headers";
}

// The module of an unresolved frame, "path(function+0x..)[0x..]"; "" if the
// line is no such frame.
std::string moduleOf(const std::string& line) {
  if (line.empty() || line.front() != '/') return "";
  const std::size_t end = line.find_first_of("([ ");
  if (end == std::string::npos || line[end] == ' ') return "";
  return line.substr(0, end);
}

// The frame without the absolute address that backtrace_symbols appends
// (it differs between processes) and with its module's directory cut.
std::string loneLibraryFrame(const std::string& line) {
  std::string out = line;
  const std::string module = moduleOf(out);
  if (!module.empty()) out = basename(module) + out.substr(module.size());
  const std::size_t address = out.rfind("[0x");
  if (address != std::string::npos && out.back() == ']') {
    out.erase(address);
    while (!out.empty() && out.back() == ' ') out.pop_back();
  }
  return shortenFrame(out);
}

}  // namespace

std::string libraryOf(const std::string& line) {
  if (line.empty() || startsWith(line, "[ranktest]") || line.front() == '(') {
    return "";  // a marker
  }
  const std::size_t at = line.rfind(" at ");
  if (at != std::string::npos) {
    // "function at file:line": a frame of the test binary.
    return headerLibrary(line.substr(at + 4, line.rfind(':') - at - 4));
  }
  const std::string module = moduleOf(line);
  if (module.empty()) return "";
  const std::string name = basename(module);
  if (!contains(name, ".so")) return "";  // the executable itself
  return inLibraryLocation(module) || isRuntimeLibrary(name) ? name : "";
}

std::string shortenFrame(const std::string& frame) {
  if (frame.size() <= kLongFrame) return frame;
  std::string out;
  int depth = 0;
  std::size_t open = 0;  // in `out`, the outermost '<'
  for (std::size_t i = 0; i < frame.size(); ++i) {
    // operator<, operator<<, operator<=, operator->, ...: no brackets.
    if (frame.compare(i, 8, "operator") == 0) {
      std::size_t end = i + 8;
      while (end < frame.size() && std::strchr("<>=-", frame[end]) != nullptr) {
        ++end;
      }
      out.append(frame, i, end - i);
      i = end - 1;
      continue;
    }
    const char c = frame[i];
    out += c;
    if (c == '<' && depth++ == 0) open = out.size() - 1;
    if (c != '>') continue;
    if (--depth < 0) return frame;  // not a template list: leave it
    if (depth == 0 && out.size() - open - 2 > kShortArguments) {
      out.resize(open);
      out += "<...>";
    }
  }
  return depth == 0 ? out : frame;
}

std::vector<std::string> foldLibraryFrames(
    const std::vector<std::string>& stack) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < stack.size()) {
    std::string library = libraryOf(stack[i]);
    if (library.empty()) {
      out.push_back(shortenFrame(stack[i++]));
      continue;
    }
    std::size_t end = i;
    std::vector<std::string> names;
    for (; end < stack.size() && !(library = libraryOf(stack[end])).empty();
         ++end) {
      bool seen = false;
      for (const std::string& name : names) seen = seen || name == library;
      if (!seen) names.push_back(library);
    }
    if (end - i == 1) {
      out.push_back(loneLibraryFrame(stack[i]));
    } else {
      std::string line = "... " + std::to_string(end - i) + " frames in ";
      for (std::size_t n = 0; n < names.size(); ++n) {
        line += (n == 0 ? "" : ", ") + names[n];
      }
      out.push_back(line);
    }
    i = end;
  }
  return out;
}

}  // namespace ranktest::internal
