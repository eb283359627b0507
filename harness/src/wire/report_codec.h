#pragma once

// What launched ranks share through the job's store instead of a parent
// (external-launcher mode), in the field codec (fields.h): a RankReport, the
// failure time as wall-clock milliseconds (steady clocks of different hosts
// have nothing in common), and a rank's decision on skipping a test.

#include <optional>
#include <string>

#include "wire/rank_report.h"

namespace ranktest::internal {

std::string encodeReport(const RankReport& report);
// Throws std::invalid_argument on bytes encodeReport did not make.
RankReport decodeReport(const std::string& bytes);

// A rank's decision on skipping a test: nullopt to run it.
std::string encodeSkipDecision(const std::optional<Skip>& skip);
// Throws std::invalid_argument on bytes encodeSkipDecision did not make.
std::optional<Skip> decodeSkipDecision(const std::string& bytes);

}  // namespace ranktest::internal
