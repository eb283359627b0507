#include "verdict/source_paths.h"

#include <cctype>
#include <cstring>

namespace ranktest::internal {
namespace {

// This file's path inside the tree; __FILE__ is it, behind the root.
constexpr char kThisFile[] = "harness/src/verdict/source_paths.cpp";

std::string rootOf(const std::string& file) {
  const std::size_t suffix = std::strlen(kThisFile);
  if (file.empty() || file.front() != '/' || file.size() <= suffix ||
      file.compare(file.size() - suffix, suffix, kThisFile) != 0) {
    return "";
  }
  return file.substr(0, file.size() - suffix);
}

// Whether the root at `at` starts a path, not the middle of a longer one.
bool startsPath(const std::string& text, std::size_t at) {
  if (at == 0) return true;
  const char before = text[at - 1];
  return before != '/' && before != '.' && before != '_' && before != '-' &&
         !std::isalnum(static_cast<unsigned char>(before));
}

}  // namespace

const std::string& sourceRoot() {
  static const std::string root = rootOf(__FILE__);
  return root;
}

std::string relativeTo(const std::string& root, const std::string& text) {
  if (root.empty()) return text;
  std::string out;
  std::size_t from = 0;
  std::size_t at = text.find(root);
  while (at != std::string::npos) {
    if (startsPath(text, at)) {
      out.append(text, from, at - from);
      from = at + root.size();
      at = text.find(root, from);
    } else {
      at = text.find(root, at + 1);
    }
  }
  return out.append(text, from, std::string::npos);
}

std::string relativeToSourceTree(const std::string& text) {
  return relativeTo(sourceRoot(), text);
}

}  // namespace ranktest::internal
