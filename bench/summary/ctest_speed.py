"""ctest speed: a suite's and the whole build's tests under ctest, each test
its own binary start (ctest_before) or forked by a warm process
(ctest_warm), beside one process running the whole suite (direct, reuse)."""

from .report import Summary, table
from .stats import DASH, median, num, ratio, round_ratios, times
from .svg import Panel

# Per cell: its heading, the mode the others are compared with, and the goal
# for ctest_warm / that mode (the most it may be, as written), if any.
CELLS = {
    "join": ("join: suite_join's gloo tests", "direct", (1.2, "1.2x")),
    "whole": ("whole: every test of the build but the nccl instances",
              "ctest_before", (1 / 3, "1/3")),
    "suites": ("suites: the same but the harness's own tests (launchers, a "
               "package build, deadlines)", "ctest_before", None),
    "consumer": ("consumer: a project built against the installed package",
                 "ctest_before", None),
}


def _min_max(xs, show=num):
    """"9.41–9.87" over the rounds; one round has no spread."""
    if len(xs) < 2:
        return DASH
    return f"{show(min(xs))}–{show(max(xs))}"


def _tests(counts):
    """The number of tests that passed, a range where the rounds differ."""
    if not counts:
        return DASH
    low, high = (f"{x:.0f}" for x in (min(counts), max(counts)))
    return low if low == high else f"{low}–{high}"


def _met(goal, against):
    if against is None:
        return DASH
    return "yes" if against <= goal[0] else "no"


def _cell(samples, cell):
    """The cell's table and its plot's points: (median, min, max) per mode."""
    heading, base, goal = CELLS.get(cell, (cell, "ctest_before", None))
    base_rows = samples.where(cell=cell, mode=base, metric="wall_s")
    base_median = median([r["value"] for r in base_rows])
    rows, points = [], []
    modes = samples.distinct("mode", cell=cell, metric="wall_s")
    for mode in modes:
        runs = samples.where(cell=cell, mode=mode, metric="wall_s")
        walls = [r["value"] for r in runs]
        against = ratio(median(walls), base_median)
        row = [mode, num(median(walls)), _min_max(walls),
               _tests(samples.values(cell=cell, mode=mode, metric="tests")),
               times(against), _min_max(round_ratios(runs, base_rows), times)]
        if goal:
            row.append(_met(goal, against) if mode == "ctest_warm" else "")
        rows.append(row)
        points.append((median(walls), min(walls), max(walls)))
    header = ["mode", "wall s (median)", "min–max", "tests", f"/ {base}",
              "per round min–max"]
    if goal:
        header.append(f"ctest_warm / {base} at most {goal[1]}")
    rounds = len(samples.distinct("round", cell=cell, metric="wall_s"))
    return heading, table(header, rows), modes, points, rounds


def summarise(samples):
    summary = Summary("ctest speed: warm processes against a binary start "
                      "per test", "ctest-speed")
    for cell in samples.distinct("cell"):
        heading, text, modes, points, rounds = _cell(samples, cell)
        summary.sections.append((heading, text))
        panel = Panel(f"{cell} ({rounds} round{'s' * (rounds != 1)})",
                      "mode", "wall s (median, min–max)", modes, lines=False)
        panel.add("wall s", points)
        summary.panels.append(panel)
    return summary
