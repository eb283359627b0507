#pragma once

// A RankReport as bytes, for ranks that share their reports through a store
// instead of a parent (external-launcher mode): fields as length-prefixed
// strings, the failure time as wall-clock milliseconds (steady clocks of
// different hosts have nothing in common).

#include <string>

#include "wire/rank_report.h"

namespace ranktest::internal {

std::string encodeReport(const RankReport& report);
// Throws std::invalid_argument on bytes encodeReport did not make.
RankReport decodeReport(const std::string& bytes);

}  // namespace ranktest::internal
