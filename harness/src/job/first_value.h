#pragma once

// Keys of a launched job's store that more than one process may set, where
// the first value must stand for every reader: a rank's report, its test's
// name, or the mark of a rank that stopped waiting for it (late, silent).
// A plain set would replace the mark with a value that came just after it,
// so that ranks that read the key at different times judge differently.

#include <cstdint>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <vector>

namespace ranktest::internal {

// Sets `key` to `value` unless it holds a value already, and wakes its
// waiters; whether `value` is the one that stands. (c10d's compareSet wakes
// no waiter: a set of the value that stands follows it.) Every writer of
// such a key must set it through here.
bool setFirst(c10d::Store& store, const std::string& key,
              const std::vector<std::uint8_t>& value);

}  // namespace ranktest::internal
