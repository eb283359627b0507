#pragma once

// The ways of running a test that the benchmark compares: ranktest's start
// methods and stores, with and without process reuse, and the bare baselines.

#include <string>

namespace harness_overhead {

enum class Mode {
  kBareFork,
  kFork,
  kReuse,
  kForkTcp,
  kReuseTcp,
  kBareSpawn,
  kSpawn
};

// Every mode, in the order cells run and tables list them.
inline constexpr Mode kAllModes[] = {
    Mode::kBareFork, Mode::kFork,      Mode::kReuse, Mode::kForkTcp,
    Mode::kReuseTcp, Mode::kBareSpawn, Mode::kSpawn};

// As --bench_modes and the suite names spell it, e.g. "bare_fork".
const char* modeName(Mode mode);
// As the report's tables spell it, e.g. "bare fork (no harness)".
const char* modeLabel(Mode mode);
// The mode named `name`; throws std::invalid_argument for none.
Mode parseMode(const std::string& name);

bool isSpawn(Mode mode);
bool isBare(Mode mode);
bool isReuse(Mode mode);
bool isTcp(Mode mode);

}  // namespace harness_overhead
