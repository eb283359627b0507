// The field codec every message that crosses a process or a host goes
// through (wire/fields.h): any text survives, numbers come back in their
// range, and whatever does not decode fails with the one error, naming the
// message and the byte.

#include "wire/fields.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>
#include <string>

namespace harness_suite {
namespace {

using ranktest::internal::FieldReader;
using ranktest::internal::FieldWriter;
using ranktest::internal::integerIn;
using ::testing::HasSubstr;

// The error `read` throws on `bytes`, or "" where it throws none.
template <typename Read>
std::string errorOf(const std::string& bytes, Read read) {
  try {
    FieldReader in(bytes, "a test message");
    read(in);
  } catch (const std::invalid_argument& error) {
    return error.what();
  }
  return "";
}

TEST(HarnessFields, AnyTextAndEveryNumberComeBackAsWritten) {
  const std::string awkward = std::string("a|b:c\n12:d\0e", 12);
  const std::int64_t lowest = std::numeric_limits<std::int64_t>::min();
  FieldWriter w;
  w.text(awkward).text("").integer(-7).integer(lowest).flag(true);
  w.optionalInteger(std::nullopt).optionalInteger(0);
  FieldReader in(w.bytes(), "a test message");
  EXPECT_EQ(in.text(), awkward);
  EXPECT_EQ(in.text(), "");
  EXPECT_EQ(in.integer(-10, 10), -7);
  EXPECT_EQ(in.integer(lowest, 0), lowest);
  EXPECT_TRUE(in.flag());
  EXPECT_EQ(in.optionalInteger(0, 5), std::nullopt);
  EXPECT_EQ(in.optionalInteger(0, 5), 0);
  EXPECT_NO_THROW(in.expectEnd());
}

TEST(HarnessFields, WhatDoesNotDecodeFailsNamingTheMessageAndTheByte) {
  const std::string three = FieldWriter().integer(3).bytes();  // "1:3"
  EXPECT_EQ(errorOf("", [](FieldReader& in) { in.text(); }),
            "ranktest: a test message is malformed at byte 0 (no field here)");
  EXPECT_THAT(errorOf("9:abc", [](FieldReader& in) { in.text(); }),
              HasSubstr("at byte 0 (a field's length is not a length"));
  EXPECT_THAT(errorOf("x:abc", [](FieldReader& in) { in.text(); }),
              HasSubstr("at byte 0 (a field's length"));
  EXPECT_THAT(errorOf(three, [](FieldReader& in) { in.integer(0, 2); }),
              HasSubstr("at byte 0 (not an integer in [0, 2])"));
  EXPECT_THAT(errorOf("1:a", [](FieldReader& in) { in.integer(0, 9); }),
              HasSubstr("(not an integer in [0, 9])"));
  EXPECT_EQ(errorOf(three + three,
                    [](FieldReader& in) {
                      in.integer(0, 9);
                      in.expectEnd();
                    }),
            "ranktest: a test message is malformed at byte 3 (trailing bytes)");
  EXPECT_THAT(errorOf("1:x", [](FieldReader& in) { in.optionalInteger(0, 9); }),
              HasSubstr("(not empty, and not an integer in [0, 9])"));
}

TEST(HarnessFields, AValueThatIsOneNumberIsReadInItsRange) {
  EXPECT_EQ(integerIn("42", "the job's exit code", 0, 255), 42);
  for (const char* bad : {"", "4x", " 4", "+4", "256", "-1"}) {
    EXPECT_THROW(integerIn(bad, "the job's exit code", 0, 255),
                 std::invalid_argument)
        << bad;
  }
  try {
    integerIn("x", "the job's exit code", 0, 255);
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(),
                 "ranktest: the job's exit code is malformed at byte 0 (not "
                 "an integer in [0, 255])");
  }
}

}  // namespace
}  // namespace harness_suite
