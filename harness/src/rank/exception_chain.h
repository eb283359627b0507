#pragma once

// An uncaught exception and those nested in it (std::throw_with_nested): a
// library that adds context to an error (distalgo's hook adapter) nests the
// original, whose throw site is the one that points at the user's code.

#include <exception>
#include <string>
#include <vector>

namespace ranktest::internal {

struct ChainedException {
  std::string type;     // demangled; std::_Nested_exception<T> reads T
  std::string message;  // what(); a c10::Error's without its backtrace
  const std::exception* error = nullptr;  // null: not a std::exception
};

// what(); a c10::Error's without libtorch's C++ backtrace, which is no part
// of its cause.
std::string messageOf(const std::exception& error);

// `error` and the exceptions nested in it, outermost first. The pointers
// stay valid while `error` lives (it owns the nested ones).
std::vector<ChainedException> exceptionChain(const std::exception& error);

}  // namespace ranktest::internal
