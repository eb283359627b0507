#include "wire/report_codec.h"

#include <chrono>
#include <stdexcept>

#include "wire/check.h"

namespace ranktest::internal {
namespace {

using SteadyClock = std::chrono::steady_clock;
using SystemClock = std::chrono::system_clock;

class Writer {
 public:
  Writer& operator<<(const std::string& field) {
    bytes_ += std::to_string(field.size()) + ':' + field;
    return *this;
  }
  Writer& operator<<(long long number) {
    return *this << std::to_string(number);
  }
  std::string bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}

  std::string text() {
    const std::size_t colon = bytes_.find(':', at_);
    if (colon == std::string::npos) malformed();
    std::size_t size = 0;
    try {
      size = std::stoul(bytes_.substr(at_, colon - at_));
    } catch (const std::exception&) {
      malformed();
    }
    if (colon + 1 + size > bytes_.size()) malformed();
    std::string field = bytes_.substr(colon + 1, size);
    at_ = colon + 1 + size;
    return field;
  }
  long long number() {
    try {
      return std::stoll(text());
    } catch (const std::invalid_argument&) {
      malformed();
    }
  }
  bool done() const { return at_ == bytes_.size(); }

 private:
  [[noreturn]] void malformed() const {
    RANKTEST_FAIL_ARG("ranktest: a rank's report is malformed at byte " +
                      std::to_string(at_));
  }

  const std::string& bytes_;
  std::size_t at_ = 0;
};

long long wallClockMillis(SteadyClock::time_point when) {
  const auto wall = SystemClock::now() - (SteadyClock::now() - when);
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             wall.time_since_epoch())
      .count();
}

SteadyClock::time_point fromWallClockMillis(long long millis) {
  const SystemClock::time_point wall{std::chrono::milliseconds(millis)};
  return SteadyClock::now() - std::chrono::duration_cast<SteadyClock::duration>(
                                  SystemClock::now() - wall);
}

}  // namespace

std::string encodeReport(const RankReport& r) {
  Writer w;
  w << r.rank << static_cast<long long>(r.end) << r.code << r.signal;
  w << static_cast<long long>(r.failures.size());
  for (const RankFailure& f : r.failures) w << f.file << f.line << f.message;
  w << static_cast<long long>(r.exceptions.size());
  for (const RankException& e : r.exceptions) w << e.type << e.message;
  w << (r.skip ? 1 : 0);
  if (r.skip) w << static_cast<long long>(r.skip->code) << r.skip->message;
  w << static_cast<long long>(r.stack.size());
  for (const std::string& line : r.stack) w << line;
  w << static_cast<long long>(r.tail.size());
  for (const std::string& line : r.tail) w << line;
  w << r.stopped_because << r.where;
  w << (r.failed_at ? 1 : 0);
  if (r.failed_at) w << wallClockMillis(*r.failed_at);
  return w.bytes();
}

RankReport decodeReport(const std::string& bytes) {
  Reader in(bytes);
  RankReport r;
  r.rank = static_cast<int>(in.number());
  r.end = static_cast<RankReport::End>(in.number());
  r.code = static_cast<int>(in.number());
  r.signal = static_cast<int>(in.number());
  for (long long n = in.number(); n > 0; --n) {
    RankFailure f;
    f.file = in.text();
    f.line = static_cast<int>(in.number());
    f.message = in.text();
    r.failures.push_back(f);
  }
  for (long long n = in.number(); n > 0; --n) {
    RankException e;
    e.type = in.text();
    e.message = in.text();
    r.exceptions.push_back(e);
  }
  if (in.number() != 0) {
    const auto code = static_cast<SkipCode>(in.number());
    r.skip = Skip{code, in.text()};
  }
  for (long long n = in.number(); n > 0; --n) r.stack.push_back(in.text());
  for (long long n = in.number(); n > 0; --n) r.tail.push_back(in.text());
  r.stopped_because = in.text();
  r.where = in.text();
  if (in.number() != 0) r.failed_at = fromWallClockMillis(in.number());
  if (!in.done()) {
    RANKTEST_FAIL_ARG("ranktest: a rank's report has trailing bytes");
  }
  return r;
}

}  // namespace ranktest::internal
