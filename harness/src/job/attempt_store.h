#pragma once

// torchrun serves a job's store from its agent, which keeps it across the
// job's restarts (--max-restarts): each attempt keeps to keys of its own, or
// a restarted rank would read the verdicts, reports and requests to end it
// of the attempt before.

#include <optional>
#include <string>
#include <torch/csrc/distributed/c10d/Store.hpp>

namespace ranktest::internal {

// `store` as the attempt `restart_count` (TORCHELASTIC_RESTART_COUNT) sees
// it: its keys under attemptKeyPrefix(); `store` itself where the launcher
// restarts nothing (nullopt).
c10::intrusive_ptr<c10d::Store> attemptStore(
    c10::intrusive_ptr<c10d::Store> store, std::optional<int> restart_count);

// "attempt_<n>/", or "" for nullopt: for a key prefix of a connection made
// elsewhere (a test's body connects to the store anew).
std::string attemptKeyPrefix(std::optional<int> restart_count);

}  // namespace ranktest::internal
