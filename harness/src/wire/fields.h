#pragma once

// The one field codec of the messages that cross a process or a host (a
// rank's report, the rank flag, a skip decision, the job's numbers in its
// store): a message is a sequence of fields, each "<length>:<bytes>", so
// that any text (a test name with '|', an exception's message with
// newlines) goes through unchanged. Numbers are written in decimal and read
// back through the one number parser (number_text.h), in their range.
// Every message has one struct and its encoder and decoder together, next
// to it; a decoder reads with FieldReader, whose one error says which
// message is malformed and where. Free of libtorch.

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace ranktest::internal {

// The largest value of an int field (a rank, a line, a code).
inline constexpr std::int64_t kIntFieldMax = std::numeric_limits<int>::max();

// Builds a message field by field.
class FieldWriter {
 public:
  FieldWriter& text(std::string_view field);
  FieldWriter& integer(std::int64_t value);
  FieldWriter& flag(bool value) { return integer(value ? 1 : 0); }
  // An absent value is an empty field.
  FieldWriter& optionalInteger(const std::optional<std::int64_t>& value);
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

// Reads a message field by field. Every read of a field that is not there
// or not what it should be throws std::invalid_argument:
// "ranktest: <what> is malformed at byte N (<why>)".
class FieldReader {
 public:
  // `what` names the message for the error ("a rank's report").
  FieldReader(std::string_view bytes, std::string what);

  std::string text();
  std::int64_t integer(std::int64_t min, std::int64_t max);
  bool flag() { return integer(0, 1) == 1; }
  std::optional<std::int64_t> optionalInteger(std::int64_t min,
                                              std::int64_t max);
  // Throws unless every field was read.
  void expectEnd() const;

 private:
  [[noreturn]] void malformed(std::string_view why) const;

  std::string_view bytes_;
  std::string what_;
  std::size_t at_ = 0;
};

// `text`, a value that is one integer (a store value the job's ranks write,
// a part of a flag), in [min, max]; throws FieldReader's error naming
// `what` otherwise.
std::int64_t integerIn(std::string_view text, std::string_view what,
                       std::int64_t min, std::int64_t max);

}  // namespace ranktest::internal
