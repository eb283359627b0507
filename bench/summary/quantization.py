"""Collective quantization: time per call and bytes against exact float32."""

from .modes import cell_modes, timing_header
from .report import Summary, table
from .stats import num, ratio, times
from .svg import Panel

MODES = ["exact", "fp16", "bfp16"]
MIB = 1 / 2**20


def _wire(samples, mode, cell):
    """One call's bytes on the wire, all ranks together: the counted bytes,
    except that an exact all_reduce counts its input, of which a ring moves
    2 (W - 1) / W per rank (the quantized ones on Gloo count the
    point-to-point sends they make)."""
    counted = sum(samples.values(mode=mode, metric="sent_bytes", **cell))
    if cell["collective"] == "all_reduce" and mode == "exact":
        world = int(cell["ranks"])
        return counted * 2 * (world - 1) / world
    return counted


def summarise(samples):
    summary = Summary("Collective quantization: time and bytes",
                      "collective-quantization")
    rows = []
    panels = {}  # per payload size: {mode: {label: point}}
    for cell, _, mode, timing in cell_modes(
            samples, ["mib", "ranks", "collective"], MODES, "exact"):
        wire = _wire(samples, mode, cell)
        exact = _wire(samples, "exact", cell)
        rows.append(list(cell.values()) + [mode] + timing.columns() +
                    [num(wire, MIB), times(ratio(wire, exact))])
        label = f"{cell['collective']} {cell['ranks']}"
        panels.setdefault(cell["mib"], {}).setdefault(mode, {})[label] = (
            timing.point(ratio_plot=True))
    summary.sections.append(("Time and bytes per call", table(
        ["MiB per rank", "ranks", "collective", "mode"] +
        timing_header("call", "exact") + ["MiB on the wire", "/ exact"],
        rows)))
    for mib, by_mode in panels.items():
        labels = list(by_mode["exact"])
        panel = Panel(f"{mib} MiB per rank: call time / exact",
                      "collective, ranks", "ratio of medians (p10–p90)",
                      labels, lines=False, reference=1)
        for mode in MODES[1:]:
            panel.add(mode, [by_mode[mode].get(label) for label in labels])
        summary.panels.append(panel)
    return summary
