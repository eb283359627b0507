"""Model averaging: bytes sent and time per step against DDP + SGD."""

from .modes import by_mode, cell_modes, timing_header
from .report import Summary, table
from .stats import num, ratio, times
from .svg import Panel

MODES = ["ddp", "local_sgd_4", "post_local_4", "functional_sgd", "hook_sgd"]


def summarise(samples):
    summary = Summary("Model averaging: bytes and time per step",
                      "model-averaging")
    rows, labels = [], []
    step_ratio, sent_kib = ({m: [] for m in MODES} for _ in range(2))
    for cell, label, mode, timing in cell_modes(
            samples, ["model", "ranks"], MODES, "ddp"):
        sent = max(samples.per_rank("sent_bytes:", mode=mode, **cell))
        ddp = max(samples.per_rank("sent_bytes:", mode="ddp", **cell))
        rows.append(list(cell.values()) + [mode] + timing.columns() +
                    [num(sent, 1 / 1024), times(ratio(sent, ddp))])
        step_ratio[mode].append(timing.point(ratio_plot=True))
        sent_kib[mode].append((sent / 1024, None, None))
        labels += [label] if mode == MODES[0] else []
    summary.sections.append(("Step time and bytes", table(
        ["model", "ranks", "mode"] + timing_header("step", "ddp") +
        ["KiB sent per step (max rank)", "/ ddp"], rows)))
    summary.panels = [
        by_mode(Panel("Step time / ddp (per-round p10–p90)", "model, ranks",
                      "ratio of medians", labels, lines=False, reference=1),
                step_ratio, MODES),
        by_mode(Panel("Bytes sent per step, largest rank", "model, ranks",
                      "KiB (log scale)", labels, log=True, lines=False),
                sent_kib, MODES)]
    return summary
