#include "wire/rank_launch.h"

#include <limits>

#include "wire/fields.h"

namespace ranktest::internal {
namespace {

std::optional<int> narrow(const std::optional<std::int64_t>& value) {
  if (!value) return std::nullopt;
  return static_cast<int>(*value);
}

std::optional<std::int64_t> widen(const std::optional<int>& value) {
  if (!value) return std::nullopt;
  return *value;
}

}  // namespace

std::string encodeRankLaunch(const RankLaunch& launch) {
  FieldWriter w;
  w.integer(launch.rank).integer(launch.world_size);
  w.optionalInteger(widen(launch.local_rank));
  w.optionalInteger(widen(launch.local_world_size));
  w.optionalInteger(widen(launch.node_rank));
  w.text(launch.backend).text(launch.store).text(launch.store_prefix);
  w.text(launch.gloo_host).integer(launch.timeout.count());
  w.flag(launch.debug_wait).flag(launch.check_collectives).text(launch.test);
  return w.bytes();
}

RankLaunch decodeRankLaunch(const std::string& value) {
  FieldReader in(value, "the rank flag " + std::string(kRankFlag) + value);
  RankLaunch launch;
  launch.rank = static_cast<int>(in.integer(0, kIntFieldMax));
  launch.world_size = static_cast<int>(in.integer(1, kIntFieldMax));
  launch.local_rank = narrow(in.optionalInteger(0, kIntFieldMax));
  launch.local_world_size = narrow(in.optionalInteger(1, kIntFieldMax));
  launch.node_rank = narrow(in.optionalInteger(0, kIntFieldMax));
  launch.backend = in.text();
  launch.store = in.text();
  launch.store_prefix = in.text();
  launch.gloo_host = in.text();
  launch.timeout = std::chrono::milliseconds(
      in.integer(0, std::numeric_limits<std::int64_t>::max()));
  launch.debug_wait = in.flag();
  launch.check_collectives = in.flag();
  launch.test = in.text();
  in.expectEnd();
  return launch;
}

}  // namespace ranktest::internal
