#pragma once

// Typed arguments that Join forwards to every joinable's hook (PyTorch's
// **kwargs). Each joinable declares the keys it reads as JoinArg constants in
// its own header, so the keys are discoverable and their types fixed:
//
//   inline constexpr JoinArg<bool> kSyncMaxCount{"sync_max_count", false};
//   Join join({&counter}, {}, JoinArgs().set(kSyncMaxCount, true));
//   ... in Counter::joinHook(const JoinArgs& args): args.get(kSyncMaxCount)
//
// A key that no joinable reads is an error (a typo would otherwise be
// ignored silently).

#include <any>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace distalgo::join {

template <typename T>
struct JoinArg {
  const char* name;
  T default_value;
};

class JoinArgs {
 public:
  template <typename T>
  JoinArgs& set(const JoinArg<T>& key, T value) {
    values_[key.name] = std::move(value);
    return *this;
  }

  // The value set for `key`, or its default. Throws std::invalid_argument
  // when the value was set with another type under the same name.
  template <typename T>
  T get(const JoinArg<T>& key) const {
    read_.insert(key.name);
    auto it = values_.find(key.name);
    if (it == values_.end()) return key.default_value;
    if (const T* value = std::any_cast<T>(&it->second)) return *value;
    throwTypeMismatch(key.name);
  }

  // The names set but never read by get().
  std::vector<std::string> unread() const;

 private:
  [[noreturn]] static void throwTypeMismatch(const std::string& name);

  std::map<std::string, std::any> values_;
  mutable std::set<std::string> read_;
};

}  // namespace distalgo::join
