"""Harness overhead: the fixed cost of one distributed test in ranktest's
ways of running it, beside bare baselines and PyTorch's harness."""

from .report import Summary, table
from .stats import DASH, median, num, ratio, spread, times
from .svg import Panel

LABELS = {
    ("ranktest", "bare_fork"): "bare fork (no harness)",
    ("ranktest", "fork"): "fork",
    ("ranktest", "reuse"): "reuse (per test)",
    ("ranktest", "fork_tcp"): "fork, TCPStore",
    ("ranktest", "reuse_tcp"): "reuse, TCPStore (per test)",
    ("ranktest", "bare_spawn"): "bare spawn (no harness)",
    ("ranktest", "spawn"): "spawn",
    ("ranktest", "under_mpirun"): "under mpirun (launched job)",
    ("ranktest", "under_torchrun"): "under torchrun (launched job)",
    ("pytorch", "fork"): "PyTorch fork",
    ("pytorch", "spawn"): "PyTorch spawn",
}


def _test_rows(samples, side, mode, ranks):
    cell = {"side": side, "mode": mode, "ranks": ranks}
    tests = samples.values(metric="test_us", **cell)
    cpu = samples.values(metric="parent_cpu_us", **cell)
    fork = samples.values(metric="fork_cpu_us", **cell)
    outside = [c - f for c, f in zip(cpu, fork)]
    rows = [[LABELS[side, mode], ranks, len(tests), num(median(tests), 1e-3),
             spread(tests, 1e-3), num(median(cpu), 1e-3),
             num(median(outside), 1e-3)]]
    starts = samples.values(metric="pool_start_us", **cell)
    if starts:
        rows.append([LABELS[side, mode].replace("(per test)", "pool start"),
                     ranks, len(starts), num(median(starts), 1e-3),
                     spread(starts, 1e-3), DASH, DASH])
    return rows


def summarise(samples):
    summary = Summary("Harness overhead: the fixed cost of one distributed "
                      "test", "harness-overhead")
    world_sizes = sorted(set(samples.distinct("ranks")), key=int)

    def ms(side, mode, ranks):
        us = median(samples.values(side=side, mode=mode, ranks=ranks,
                                   metric="test_us"))
        return us and us / 1000

    rows = [row for side, mode in LABELS
            for ranks in samples.distinct("ranks", side=side, mode=mode)
            for row in _test_rows(samples, side, mode, ranks)]
    comparison = []
    for w in world_sizes:
        fork, spawn, reuse = (ms("ranktest", m, w)
                              for m in ("fork", "spawn", "reuse"))
        py_fork, py_spawn = ms("pytorch", "fork", w), ms("pytorch", "spawn", w)
        bare = ms("ranktest", "bare_fork", w)
        comparison.append([w, num(fork), num(py_fork),
                           times(ratio(fork, py_fork)), num(spawn),
                           num(py_spawn), times(ratio(spawn, py_spawn)),
                           num(reuse), times(ratio(reuse, py_fork)),
                           num(fork - bare) if fork and bare else DASH])
    launched = []
    for w in world_sizes:
        fork, mpi, elastic = (ms("ranktest", m, w)
                              for m in ("fork", "under_mpirun",
                                        "under_torchrun"))
        if mpi or elastic:
            launched.append([w, num(fork), num(mpi), times(ratio(mpi, fork)),
                             num(elastic), times(ratio(elastic, fork))])
    summary.sections += [
        ("Per test", table(["mode", "ranks", "tests", "median ms", "p10–p90",
                            "parent CPU ms", "parent CPU outside fork() ms"],
                           rows)),
        ("ranktest against PyTorch's MultiProcessTestCase (medians, ms)",
         table(["ranks", "fork", "PyTorch fork", "ratio", "spawn",
                "PyTorch spawn", "ratio", "reuse", "reuse / PyTorch fork",
                "fork − bare fork"], comparison))]
    if launched:
        summary.sections.append(
            ("Under a launcher against forked ranks (medians, ms; the "
             "launched time is rank 0's: agreeing on the test, starting "
             "its body, gathering every report)",
             table(["ranks", "fork", "under mpirun", "ratio",
                    "under torchrun", "ratio"], launched)))
    panel = Panel("Time per test (median)", "ranks", "ms (log scale)",
                  world_sizes, log=True)
    for (side, mode), label in LABELS.items():
        points = [ms(side, mode, w) for w in world_sizes]
        if any(points):
            panel.add(label, [p and (p, None, None) for p in points])
    summary.panels = [panel]
    return summary
