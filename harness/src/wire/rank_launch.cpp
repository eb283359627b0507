#include "wire/rank_launch.h"

#include <sstream>
#include <stdexcept>
#include <vector>

#include "wire/check.h"

namespace ranktest::internal {

namespace {

constexpr int kFields = 13;

std::string encodeOptional(const std::optional<int>& value) {
  return value ? std::to_string(*value) : std::string();
}

std::optional<int> decodeOptional(const std::string& text) {
  if (text.empty()) return std::nullopt;
  return std::stoi(text);
}

}  // namespace

// Fields are '|'-separated; test names and backends never contain '|'.
std::string encodeRankLaunch(const RankLaunch& launch) {
  std::ostringstream out;
  out << launch.rank << '|' << launch.world_size << '|'
      << encodeOptional(launch.local_rank) << '|'
      << encodeOptional(launch.local_world_size) << '|'
      << encodeOptional(launch.node_rank) << '|' << launch.backend << '|'
      << launch.store << '|' << launch.store_prefix << '|' << launch.gloo_host
      << '|' << launch.timeout.count() << '|' << (launch.debug_wait ? 1 : 0)
      << '|' << (launch.check_collectives ? 1 : 0) << '|' << launch.test;
  return out.str();
}

RankLaunch decodeRankLaunch(const std::string& value) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (int i = 0; i < kFields - 1; ++i) {
    const std::size_t bar = value.find('|', start);
    if (bar == std::string::npos) {
      RANKTEST_FAIL_ARG("malformed " + std::string(kRankFlag) + value);
    }
    fields.push_back(value.substr(start, bar - start));
    start = bar + 1;
  }
  fields.push_back(value.substr(start));
  RankLaunch launch;
  launch.rank = std::stoi(fields[0]);
  launch.world_size = std::stoi(fields[1]);
  launch.local_rank = decodeOptional(fields[2]);
  launch.local_world_size = decodeOptional(fields[3]);
  launch.node_rank = decodeOptional(fields[4]);
  launch.backend = fields[5];
  launch.store = fields[6];
  launch.store_prefix = fields[7];
  launch.gloo_host = fields[8];
  launch.timeout = std::chrono::milliseconds(std::stoll(fields[9]));
  launch.debug_wait = fields[10] == "1";
  launch.check_collectives = fields[11] == "1";
  launch.test = fields[12];
  return launch;
}

}  // namespace ranktest::internal
