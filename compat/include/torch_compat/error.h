#pragma once

// c10::Error::backtrace(): a string up to 2.0, a lazily symbolized value
// (c10::Backtrace) since.

#include <c10/util/Exception.h>

#include <string>
#include <type_traits>

namespace torch_compat {

// The stack libtorch recorded where `error` was thrown, as text.
template <class Error = c10::Error>
std::string backtraceText(const Error& error) {
  if constexpr (std::is_convertible_v<decltype(error.backtrace()),
                                      const std::string&>) {
    return error.backtrace();
  } else {
    return error.backtrace()->get();
  }
}

}  // namespace torch_compat
