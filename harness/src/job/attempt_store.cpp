#include "job/attempt_store.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <utility>

#include "wire/store_keys.h"

namespace ranktest::internal {

c10::intrusive_ptr<c10d::Store> attemptStore(
    c10::intrusive_ptr<c10d::Store> store, std::optional<int> restart_count) {
  if (!restart_count) return store;
  // PrefixStore joins its prefix and a key with '/': attemptKeyPrefix().
  return c10::make_intrusive<c10d::PrefixStore>(keys::attempt(*restart_count),
                                                std::move(store));
}

std::string attemptKeyPrefix(std::optional<int> restart_count) {
  return restart_count ? keys::attempt(*restart_count) + "/" : "";
}

}  // namespace ranktest::internal
