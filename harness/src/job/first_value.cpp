#include "job/first_value.h"

namespace ranktest::internal {

bool setFirst(c10d::Store& store, const std::string& key,
              const std::vector<std::uint8_t>& value) {
  // Set again whichever stands: its waiters wake even where the process
  // that took the key died before its own set. Every writer of such a key
  // sets it through here, so the value cannot change.
  const std::vector<std::uint8_t> standing = store.compareSet(key, {}, value);
  store.set(key, standing);
  return standing == value;
}

}  // namespace ranktest::internal
