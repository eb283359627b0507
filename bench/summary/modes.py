"""Modes timed side by side in one cell (bench/README.md, "Method"): each
mode's step times against a baseline mode's."""

from .stats import median, num, percentile, ratio, round_ratios, spread, times
from .svg import Panel

TIMING_HEADER = ["ms", "p10–p90", "/ {base}", "per round p10–p90"]


class Timing:
    """One mode's step_us samples in a cell against the baseline's."""

    def __init__(self, samples, mode, baseline, **cell):
        rows = samples.where(mode=mode, metric="step_us", **cell)
        base = samples.where(mode=baseline, metric="step_us", **cell)
        self.us = [r["value"] for r in rows]
        self.median_ms = median(self.us) and median(self.us) / 1000
        self.ratio = ratio(median(self.us), median([r["value"] for r in base]))
        self.round_ratios = round_ratios(rows, base)

    def columns(self):
        """As TIMING_HEADER: median ms, its spread, the ratio of medians and
        its spread over the rounds."""
        return [num(self.median_ms), spread(self.us, 1e-3), times(self.ratio),
                spread(self.round_ratios)]

    def point(self, ratio_plot=False):
        """(y, low, high) for a plot: the ratio with its per-round spread,
        or the median ms with its spread."""
        xs, y = ((self.round_ratios, self.ratio) if ratio_plot
                 else ([u / 1000 for u in self.us], self.median_ms))
        if y is None:
            return None
        return (y, percentile(xs, 0.1), percentile(xs, 0.9))


def timing_header(unit, base):
    return [f"{unit} {TIMING_HEADER[0]}"] + [
        h.format(base=base) for h in TIMING_HEADER[1:]]


def cell_modes(samples, columns, modes, baseline):
    """(cell, label, mode, Timing) for each cell, the distinct values of
    `columns` in the order they ran, and each of its modes."""
    for values in samples.distinct(*columns):
        values = values if isinstance(values, tuple) else (values,)
        cell = dict(zip(columns, values))
        for mode in modes:
            yield (cell, " ".join(values), mode,
                   Timing(samples, mode, baseline, **cell))


def by_mode(panel, points, modes):
    """Adds a series per mode to `panel` from points[mode]."""
    for mode in modes:
        panel.add(mode, points[mode])
    return panel


def step_time_panel(xlabel, labels, points, modes):
    """The median step time of each mode, with its p10–p90."""
    return by_mode(Panel("Step time (median, p10–p90)", xlabel, "ms per step",
                         labels), points, modes)
