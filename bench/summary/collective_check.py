"""The collective-mismatch check: time per collective call, plain and
checked, and what the check adds."""

from .modes import cell_modes, timing_header
from .report import Summary, table
from .stats import median, num
from .svg import Panel

MODES = ["plain", "checked"]


def summarise(samples):
    summary = Summary("Collective-mismatch check: cost per call",
                      "collective-mismatch-check")
    rows = []
    labels, points = [], {mode: [] for mode in MODES}
    for cell, label, mode, timing in cell_modes(
            samples, ["kib", "ranks", "collective"], MODES, "plain"):
        added = ""
        if mode == "checked":
            plain = samples.values(mode="plain", metric="step_us", **cell)
            added = num(median(timing.us) - median(plain))
        rows.append(list(cell.values()) + [mode] + timing.columns() + [added])
        if mode == MODES[0]:
            labels.append(f"{cell['collective']} {cell['kib']} KiB "
                          f"{cell['ranks']}")
        points[mode].append(timing.point())
    summary.sections.append(("Time per call", table(
        ["KiB per rank", "ranks", "collective", "mode"] +
        timing_header("call", "plain") + ["µs added"], rows)))
    panel = Panel("Time per call (median, p10–p90)",
                  "collective, KiB per rank, ranks", "ms per call", labels,
                  log=True, lines=False)
    for mode in MODES:
        panel.add(mode, points[mode])
    summary.panels.append(panel)
    return summary
