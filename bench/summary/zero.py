"""ZeRO: step time and each rank's optimizer state against DDP + Adam."""

from .modes import by_mode, cell_modes, step_time_panel, timing_header
from .report import Summary, table
from .stats import num, ratio, times
from .svg import Panel

MODES = ["adam", "zero", "zero_bucket_view", "zero_overlap",
         "zero_overlap_interleaved"]
MIB = 1 / 2**20


def summarise(samples):
    summary = Summary("ZeRO: step time and optimizer state", "zero")
    rows, labels = [], []
    step_ms, state_mib = ({m: [] for m in MODES} for _ in range(2))
    for cell, label, mode, timing in cell_modes(
            samples, ["model", "ranks"], MODES, "adam"):
        state = samples.values(mode=mode, metric="state_bytes", **cell)
        adam = samples.values(mode="adam", metric="state_bytes", **cell)
        sent = samples.per_rank("sent_bytes:", mode=mode, **cell)
        rows.append(list(cell.values()) + [mode] + timing.columns() + [
            num(max(state), MIB), num(sum(state) / len(state), MIB),
            times(ratio(max(state), max(adam))),
            times(1 / int(cell["ranks"])), num(max(sent), 1 / 1024)])
        step_ms[mode].append(timing.point())
        state_mib[mode].append((max(state) * MIB, None, None))
        labels += [label] if mode == MODES[0] else []
    summary.sections.append(("Step time and state", table(
        ["model", "ranks", "mode"] + timing_header("step", "adam") +
        ["state MiB (max rank)", "mean", "max / adam", "1/W",
         "KiB sent per step (max rank)"], rows)))
    summary.panels = [
        step_time_panel("model, ranks", labels, step_ms, MODES),
        by_mode(Panel("Optimizer state, largest rank", "model, ranks", "MiB",
                      labels), state_mib, MODES)]
    return summary
