#include "wire/report_codec.h"

#include <chrono>
#include <cstdint>
#include <limits>

#include "wire/fields.h"

namespace ranktest::internal {
namespace {

using SteadyClock = std::chrono::steady_clock;
using SystemClock = std::chrono::system_clock;

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

// The most lines, failures or exceptions one report may say it holds: a
// count past it is a malformed report, not an allocation to attempt.
constexpr std::int64_t kMostItems = 1 << 24;

std::string encodeReport(const RankReport& r) {
  FieldWriter w;
  w.integer(r.rank).integer(static_cast<int>(r.end)).integer(r.code);
  w.integer(r.signal).integer(static_cast<std::int64_t>(r.failures.size()));
  for (const RankFailure& f : r.failures) {
    w.text(f.file).integer(f.line).text(f.message);
  }
  w.integer(static_cast<std::int64_t>(r.exceptions.size()));
  for (const RankException& e : r.exceptions) w.text(e.type).text(e.message);
  w.flag(r.skip.has_value());
  if (r.skip) w.integer(static_cast<int>(r.skip->code)).text(r.skip->message);
  w.integer(static_cast<std::int64_t>(r.stack.size()));
  for (const std::string& line : r.stack) w.text(line);
  w.integer(static_cast<std::int64_t>(r.tail.size()));
  for (const std::string& line : r.tail) w.text(line);
  w.text(r.stopped_because).text(r.where).flag(r.failed_at.has_value());
  if (r.failed_at) w.integer(wallClockMillis(*r.failed_at));
  return w.bytes();
}

RankReport decodeReport(const std::string& bytes) {
  FieldReader in(bytes, "a rank's report");
  RankReport r;
  r.rank = static_cast<int>(in.integer(0, kIntFieldMax));
  r.end = static_cast<RankReport::End>(
      in.integer(0, static_cast<int>(RankReport::End::kStopped)));
  r.code = static_cast<int>(in.integer(-kIntFieldMax, kIntFieldMax));
  r.signal = static_cast<int>(in.integer(0, kIntFieldMax));
  for (std::int64_t n = in.integer(0, kMostItems); n > 0; --n) {
    RankFailure f;
    f.file = in.text();
    f.line = static_cast<int>(in.integer(0, kIntFieldMax));
    f.message = in.text();
    r.failures.push_back(std::move(f));
  }
  for (std::int64_t n = in.integer(0, kMostItems); n > 0; --n) {
    RankException e;
    e.type = in.text();
    e.message = in.text();
    r.exceptions.push_back(std::move(e));
  }
  if (in.flag()) {
    const auto code = static_cast<SkipCode>(in.integer(0, 255));
    r.skip = Skip{code, in.text()};
  }
  for (std::int64_t n = in.integer(0, kMostItems); n > 0; --n) {
    r.stack.push_back(in.text());
  }
  for (std::int64_t n = in.integer(0, kMostItems); n > 0; --n) {
    r.tail.push_back(in.text());
  }
  r.stopped_because = in.text();
  r.where = in.text();
  if (in.flag()) {
    r.failed_at = fromWallClockMillis(
        in.integer(std::numeric_limits<std::int64_t>::min(),
                   std::numeric_limits<std::int64_t>::max()));
  }
  in.expectEnd();
  return r;
}

std::string encodeSkipDecision(const std::optional<Skip>& skip) {
  FieldWriter w;
  w.flag(skip.has_value());
  if (skip) w.integer(static_cast<int>(skip->code)).text(skip->message);
  return w.bytes();
}

std::optional<Skip> decodeSkipDecision(const std::string& bytes) {
  FieldReader in(bytes, "a rank's decision on skipping");
  std::optional<Skip> skip;
  if (in.flag()) {
    const auto code = static_cast<SkipCode>(in.integer(0, 255));
    skip = Skip{code, in.text()};
  }
  in.expectEnd();
  return skip;
}

}  // namespace ranktest::internal
