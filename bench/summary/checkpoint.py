"""Activation checkpointing: memory and step time against the plain MLP."""

from .modes import by_mode, cell_modes, step_time_panel, timing_header
from .report import Summary, table
from .stats import num, ratio, times
from .svg import Panel

MODES = ["plain", "checkpoint", "checkpoint_offload"]
MIB = 1 / 2**20


def summarise(samples):
    summary = Summary("Activation checkpointing: memory and step time",
                      "activation-checkpointing")
    rows, depths = [], []
    step_ms, peak_mib = ({m: [] for m in MODES} for _ in range(2))
    for cell, label, mode, timing in cell_modes(samples, ["depth"], MODES,
                                                "plain"):
        memory = []
        for metric in ("retained_bytes", "peak_bytes"):
            mine = samples.values(mode=mode, metric=metric, **cell)[0]
            plain = samples.values(mode="plain", metric=metric, **cell)[0]
            memory += [num(mine, MIB), times(ratio(mine, plain))]
            peak = mine * MIB
        rows.append([label, mode] + timing.columns() + memory)
        step_ms[mode].append(timing.point())
        peak_mib[mode].append((peak, None, None))
        depths += [label] if mode == MODES[0] else []
    summary.sections.append(("Memory and step time", table(
        ["depth", "mode"] + timing_header("step", "plain") +
        ["retained MiB", "/ plain", "peak MiB", "/ plain"], rows)))
    summary.panels = [
        step_time_panel("depth (blocks)", depths, step_ms, MODES),
        by_mode(Panel("Peak activation memory", "depth (blocks)", "MiB",
                      depths), peak_mib, MODES)]
    return summary
