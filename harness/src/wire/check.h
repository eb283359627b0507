#pragma once

// The harness's one family of checks, in the shape of distalgo's (and c10's
// TORCH_CHECK, gloo's GLOO_ENFORCE, abseil's CHECK/PCHECK): a condition,
// then the parts of the message, joined with operator<< only when the
// condition fails. The message is the parts and nothing else: it starts
// with "ranktest: " (or the public function's name) as docs/errors.md
// lists it, kept true by HarnessErrorsDoc, which reads these macros as
// throw sites. Free of libtorch: the ctest client uses it too.
//
//   RANKTEST_CHECK_ARG(port > 0, "ranktest: bad port ", port);
//   RANKTEST_CHECK_ERRNO(::pipe2(fds, O_CLOEXEC) == 0,
//                        "ranktest: pipe2 for the state responder");
//   RANKTEST_FAIL("ranktest: the job did not form: ", why);

#include <cerrno>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>

namespace ranktest::internal {

// The parts of a message, streamed into one string.
template <typename... Parts>
std::string messageText(const Parts&... parts) {
  std::ostringstream text;
  (text << ... << parts);
  return text.str();
}

}  // namespace ranktest::internal

// std::invalid_argument unless `condition`: the caller gave something
// unusable (an argument, an environment variable, a malformed message).
#define RANKTEST_CHECK_ARG(condition, ...) \
  RANKTEST_CHECK_OR_THROW_(std::invalid_argument, condition, __VA_ARGS__)

// std::logic_error unless `condition`: a call out of order, or a state the
// harness should never reach (a bug of its own).
#define RANKTEST_CHECK_STATE(condition, ...) \
  RANKTEST_CHECK_OR_THROW_(std::logic_error, condition, __VA_ARGS__)

// std::runtime_error unless `condition`: what the run met (a job that did
// not form, a peer that went away, a resource the system refused).
#define RANKTEST_CHECK(condition, ...) \
  RANKTEST_CHECK_OR_THROW_(std::runtime_error, condition, __VA_ARGS__)

// RANKTEST_CHECK for a system call: the message ends with ": " and errno's
// text, read before anything else can change it.
#define RANKTEST_CHECK_ERRNO(condition, ...)                      \
  do {                                                            \
    if (!(condition)) [[unlikely]] {                              \
      const int ranktest_errno_ = errno;                          \
      throw std::runtime_error(                                   \
          ::ranktest::internal::messageText(__VA_ARGS__) + ": " + \
          std::strerror(ranktest_errno_));                        \
    }                                                             \
  } while (false)

// Unconditional forms, for a branch that has already decided.
#define RANKTEST_FAIL_ARG(...) \
  throw std::invalid_argument(::ranktest::internal::messageText(__VA_ARGS__))
#define RANKTEST_FAIL_STATE(...) \
  throw std::logic_error(::ranktest::internal::messageText(__VA_ARGS__))
#define RANKTEST_FAIL(...) \
  throw std::runtime_error(::ranktest::internal::messageText(__VA_ARGS__))

#define RANKTEST_CHECK_OR_THROW_(error_type, condition, ...)            \
  do {                                                                  \
    if (!(condition)) [[unlikely]] {                                    \
      throw error_type(::ranktest::internal::messageText(__VA_ARGS__)); \
    }                                                                   \
  } while (false)
