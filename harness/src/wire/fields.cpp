#include "wire/fields.h"

#include <utility>

#include "wire/check.h"
#include "wire/number_text.h"

namespace ranktest::internal {
namespace {

[[noreturn]] void failMalformed(std::string_view what, std::size_t at,
                                std::string_view why) {
  RANKTEST_FAIL_ARG("ranktest: ", what, " is malformed at byte ", at, " (", why,
                    ")");
}

std::string notAnIntegerIn(std::int64_t min, std::int64_t max) {
  return "not an integer in [" + std::to_string(min) + ", " +
         std::to_string(max) + "]";
}

}  // namespace

FieldWriter& FieldWriter::text(std::string_view field) {
  bytes_ += std::to_string(field.size());
  bytes_ += ':';
  bytes_ += field;
  return *this;
}

FieldWriter& FieldWriter::integer(std::int64_t value) {
  return text(std::to_string(value));
}

FieldWriter& FieldWriter::optionalInteger(
    const std::optional<std::int64_t>& value) {
  return value ? integer(*value) : text("");
}

FieldReader::FieldReader(std::string_view bytes, std::string what)
    : bytes_(bytes), what_(std::move(what)) {}

std::string FieldReader::text() {
  const std::size_t colon = bytes_.find(':', at_);
  if (colon == std::string_view::npos) malformed("no field here");
  const std::optional<std::int64_t> size =
      parseInteger(bytes_.substr(at_, colon - at_), 0,
                   static_cast<std::int64_t>(bytes_.size() - colon - 1));
  if (!size) malformed("a field's length is not a length within the message");
  std::string field(bytes_.substr(colon + 1, static_cast<std::size_t>(*size)));
  at_ = colon + 1 + static_cast<std::size_t>(*size);
  return field;
}

std::int64_t FieldReader::integer(std::int64_t min, std::int64_t max) {
  const std::size_t start = at_;
  const std::optional<std::int64_t> value = parseInteger(text(), min, max);
  if (!value) {
    at_ = start;
    malformed(notAnIntegerIn(min, max));
  }
  return *value;
}

std::optional<std::int64_t> FieldReader::optionalInteger(std::int64_t min,
                                                         std::int64_t max) {
  const std::size_t start = at_;
  const std::string field = text();
  if (field.empty()) return std::nullopt;
  const std::optional<std::int64_t> value = parseInteger(field, min, max);
  if (!value) {
    at_ = start;
    malformed("not empty, and " + notAnIntegerIn(min, max));
  }
  return value;
}

void FieldReader::expectEnd() const {
  if (at_ != bytes_.size()) malformed("trailing bytes");
}

void FieldReader::malformed(std::string_view why) const {
  failMalformed(what_, at_, why);
}

std::int64_t integerIn(std::string_view text, std::string_view what,
                       std::int64_t min, std::int64_t max) {
  const std::optional<std::int64_t> value = parseInteger(text, min, max);
  if (!value) failMalformed(what, 0, notAnIntegerIn(min, max));
  return *value;
}

}  // namespace ranktest::internal
