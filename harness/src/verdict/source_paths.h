#pragma once

// Locations inside ranktest's own source tree (harness/, lib/, suites/, ...)
// read relative to it in reports, e.g. `harness/src/rank_runner.cpp:120`,
// not with the absolute path of the machine that built the library. The
// root is where this library was compiled, so an installed package
// shortens its own frames as well; user code keeps the path it has.

#include <string>

namespace ranktest::internal {

// The source tree's root with a trailing '/', as this library was compiled
// ("" when the compiler was given a relative path, e.g. by ccache's
// base_dir: then there is nothing to shorten).
const std::string& sourceRoot();

// `text` with every occurrence of the root removed from the start of a path.
std::string relativeToSourceTree(const std::string& text);

// As above, for a root of the caller's choice (tests).
std::string relativeTo(const std::string& root, const std::string& text);

}  // namespace ranktest::internal
