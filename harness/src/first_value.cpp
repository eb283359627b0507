#include "ranktest/internal/first_value.h"

namespace ranktest::internal {

bool setFirst(c10d::Store& store, const std::string& key,
              const std::vector<std::uint8_t>& value) {
  if (store.compareSet(key, {}, value) != value) return false;
  store.set(key, value);
  return true;
}

}  // namespace ranktest::internal
