#include "harness_overhead/modes.h"

#include <stdexcept>

namespace harness_overhead {
namespace {

struct ModeNames {
  Mode mode;
  const char* name;
  const char* label;
};

constexpr ModeNames kNames[] = {
    {Mode::kBareFork, "bare_fork", "bare fork (no harness)"},
    {Mode::kFork, "fork", "fork"},
    {Mode::kReuse, "reuse", "reuse (per test)"},
    {Mode::kForkTcp, "fork_tcp", "fork, TCPStore"},
    {Mode::kReuseTcp, "reuse_tcp", "reuse, TCPStore (per test)"},
    {Mode::kBareSpawn, "bare_spawn", "bare spawn (no harness)"},
    {Mode::kSpawn, "spawn", "spawn"},
};

const ModeNames* namesOf(Mode mode) {
  for (const ModeNames& names : kNames) {
    if (names.mode == mode) return &names;
  }
  return nullptr;
}

}  // namespace

const char* modeName(Mode mode) {
  const ModeNames* names = namesOf(mode);
  return names ? names->name : "?";
}

const char* modeLabel(Mode mode) {
  const ModeNames* names = namesOf(mode);
  return names ? names->label : "?";
}

Mode parseMode(const std::string& name) {
  for (Mode mode : kAllModes) {
    if (name == modeName(mode)) return mode;
  }
  throw std::invalid_argument("unknown mode '" + name + "'");
}

bool isSpawn(Mode mode) {
  return mode == Mode::kSpawn || mode == Mode::kBareSpawn;
}

bool isBare(Mode mode) {
  return mode == Mode::kBareFork || mode == Mode::kBareSpawn;
}

bool isReuse(Mode mode) {
  return mode == Mode::kReuse || mode == Mode::kReuseTcp;
}

bool isTcp(Mode mode) {
  return mode == Mode::kForkTcp || mode == Mode::kReuseTcp;
}

}  // namespace harness_overhead
