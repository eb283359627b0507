#include "harness_overhead/targets.h"

#include "harness_overhead/breakdown.h"

namespace harness_overhead {
namespace {

std::string metOrNot(bool met) { return met ? "met" : "**not met**"; }

// Appends `item` to a ", "-separated list.
void appendItem(std::string& list, const std::string& item) {
  list += (list.empty() ? "" : ", ") + item;
}

// "met", or where not: "**not met** at 4, 8 ranks".
std::string verdictAt(const std::string& failing_world_sizes) {
  return failing_world_sizes.empty()
             ? "met"
             : "**not met** at " + failing_world_sizes + " ranks";
}

std::string ranks(int world_size) {
  return std::to_string(world_size) + " ranks: ";
}

void forkTarget(const Measurements& m, std::vector<Target>& out) {
  if (auto fork2 = m.medianMs(Mode::kFork, 2)) {
    out.push_back({"fork, 2 ranks: median under 60 ms", ms(*fork2) + " ms",
                   metOrNot(*fork2 < 60)});
  }
}

void reuseTarget(const Measurements& m, std::vector<Target>& out) {
  std::string measured, failing;
  for (int ws : m.cells().worldSizes()) {
    auto reuse = m.medianMs(Mode::kReuse, ws);
    if (!reuse) continue;
    appendItem(measured, ranks(ws) + ms(*reuse) + " ms");
    if (*reuse >= 10) appendItem(failing, std::to_string(ws));
  }
  if (!measured.empty()) {
    out.push_back(
        {"reuse: median per test under 10 ms", measured, verdictAt(failing)});
  }
}

void spawnTarget(const Measurements& m, const PyTorchSamples& py,
                 std::vector<Target>& out) {
  const std::string what = "spawn no slower than PyTorch's spawn (medians)";
  std::string measured, failing;
  for (int ws : m.cells().worldSizes()) {
    auto ours = m.medianMs(Mode::kSpawn, ws);
    auto theirs = py.medianMs("spawn", ws);
    if (!ours || !theirs) continue;
    appendItem(measured, ranks(ws) + ms(*ours) + " vs " + ms(*theirs) + " ms");
    if (*ours > *theirs) appendItem(failing, std::to_string(ws));
  }
  if (!measured.empty()) {
    out.push_back({what, measured, verdictAt(failing)});
  } else if (m.cells().find(Mode::kSpawn, 2)) {
    out.push_back({what, "PyTorch not measured", "not measured"});
  }
}

void harnessWorkTarget(const Measurements& m, std::vector<Target>& out) {
  const HarnessWork w = harnessWork(m, Mode::kFork, Mode::kBareFork);
  if (!w.wall && !w.parent_cpu) return;
  const bool met =
      (!w.wall || *w.wall <= 5) && (!w.parent_cpu || *w.parent_cpu <= 5);
  out.push_back({"harness's own work a few ms (≤ 5 ms), fork, 2 ranks",
                 "wall: " + ms(w.wall) +
                     " ms over bare fork; parent CPU outside fork(): " +
                     ms(w.parent_cpu) + " ms",
                 metOrNot(met)});
}

}  // namespace

std::vector<Target> targets(const Measurements& m, const PyTorchSamples& py) {
  std::vector<Target> out;
  forkTarget(m, out);
  reuseTarget(m, out);
  spawnTarget(m, py, out);
  harnessWorkTarget(m, out);
  return out;
}

Table targetTable(const std::vector<Target>& list) {
  Table t({"target", "measured", "verdict"});
  for (const Target& target : list) {
    t.add({target.what, target.measured, target.verdict});
  }
  return t;
}

}  // namespace harness_overhead
