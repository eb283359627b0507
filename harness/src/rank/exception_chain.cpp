#include "rank/exception_chain.h"

#include <c10/util/Exception.h>
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <typeinfo>

namespace ranktest::internal {
namespace {

std::string typeNameOf(const std::exception& error) {
  const char* mangled = typeid(error).name();
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  std::string name = status == 0 && out ? out.get() : mangled;
  // libstdc++'s type for std::throw_with_nested(T): the user threw a T.
  const std::string nested = "std::_Nested_exception<";
  if (name.rfind(nested, 0) == 0 && name.back() == '>') {
    name = name.substr(nested.size(), name.size() - nested.size() - 1);
  }
  return name;
}

ChainedException describe(const std::exception& error) {
  return {typeNameOf(error), messageOf(error), &error};
}

}  // namespace

std::string messageOf(const std::exception& error) {
  const auto* c10_error = dynamic_cast<const c10::Error*>(&error);
  return c10_error ? c10_error->what_without_backtrace() : error.what();
}

std::vector<ChainedException> exceptionChain(const std::exception& error) {
  std::vector<ChainedException> chain{describe(error)};
  const std::exception* current = &error;
  while (current != nullptr) {
    const auto* nested = dynamic_cast<const std::nested_exception*>(current);
    if (nested == nullptr || !nested->nested_ptr()) break;
    current = nullptr;
    // Rethrown from its exception_ptr: the same object as first thrown
    // (no __cxa_throw, so no new throw site), kept alive by `nested`.
    try {
      std::rethrow_exception(nested->nested_ptr());
    } catch (const std::exception& inner) {
      chain.push_back(describe(inner));
      current = &inner;
    } catch (...) {
      chain.push_back({"unknown",
                       "an exception not derived from "
                       "std::exception",
                       nullptr});
    }
  }
  return chain;
}

}  // namespace ranktest::internal
