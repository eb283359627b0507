#include "ranktest/internal/rank_launch.h"

#include <sstream>
#include <stdexcept>
#include <vector>

namespace ranktest::internal {

// Fields are '|'-separated; test names and backends never contain '|'.
std::string encodeRankLaunch(const RankLaunch& launch) {
  std::ostringstream out;
  out << launch.rank << '|' << launch.world_size << '|' << launch.backend << '|'
      << launch.store << '|' << launch.store_prefix << '|' << launch.gloo_host
      << '|' << launch.timeout.count() << '|' << (launch.debug_wait ? 1 : 0)
      << '|' << (launch.check_collectives ? 1 : 0) << '|' << launch.test;
  return out.str();
}

RankLaunch decodeRankLaunch(const std::string& value) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  for (int i = 0; i < 9; ++i) {
    const std::size_t bar = value.find('|', start);
    if (bar == std::string::npos) {
      throw std::invalid_argument("malformed " + std::string(kRankFlag) +
                                  value);
    }
    fields.push_back(value.substr(start, bar - start));
    start = bar + 1;
  }
  fields.push_back(value.substr(start));
  RankLaunch launch;
  launch.rank = std::stoi(fields[0]);
  launch.world_size = std::stoi(fields[1]);
  launch.backend = fields[2];
  launch.store = fields[3];
  launch.store_prefix = fields[4];
  launch.gloo_host = fields[5];
  launch.timeout = std::chrono::milliseconds(std::stoll(fields[6]));
  launch.debug_wait = fields[7] == "1";
  launch.check_collectives = fields[8] == "1";
  launch.test = fields[9];
  return launch;
}

}  // namespace ranktest::internal
