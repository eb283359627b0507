"""Join: the DDP step with and without a Join, even and uneven inputs."""

from .modes import Timing
from .report import Summary, table
from .stats import median, num, ratio, spread, times
from .svg import Panel

EVEN_HEADER = ["model", "ranks", "no Join ms", "p10–p90", "Join ms",
               "p10–p90", "Join / no Join", "per round p10–p90",
               "Join − no Join ms", "Join(enable=false) ms", "p10–p90",
               "disabled / no Join", "per round p10–p90"]
UNEVEN_HEADER = ["model", "ranks", "training step before ms", "p10–p90",
                 "after ms", "p10–p90", "after / before",
                 "after, mean per Join ms", "shadowed round ms (rank 0)",
                 "p10–p90", "shadowed / after mean"]


def _uneven_row(samples, cell):
    before, after, shadowed = (
        samples.values(mode="uneven", metric=m, **cell)
        for m in ("before_us", "after_us", "shadowed_us"))
    after_means = []
    for join in samples.distinct("round", mode="uneven", metric="after_us",
                                 **cell):
        steps = samples.values(mode="uneven", metric="after_us", round=join,
                               **cell)
        after_means.append(sum(steps) / len(steps))
    row = [num(median(before), 1e-3), spread(before, 1e-3),
           num(median(after), 1e-3), spread(after, 1e-3),
           times(ratio(median(after), median(before))),
           num(median(after_means), 1e-3), num(median(shadowed), 1e-3),
           spread(shadowed, 1e-3),
           times(ratio(median(shadowed), median(after_means)))]
    point = ratio(median(shadowed), median(after_means))
    return row, point and (point, None, None)


def summarise(samples):
    summary = Summary("Join: DDP step time with and without a Join", "join")
    even, uneven, labels = [], [], []
    series = {"Join / no Join": [], "Join(enable=false) / no Join": [],
              "uneven: shadowed / after": []}
    for model, ranks in samples.distinct("model", "ranks"):
        cell = {"model": model, "ranks": ranks}
        labels.append(f"{model} {ranks}")
        plain, join, disabled = (Timing(samples, m, "plain", **cell)
                                 for m in ("plain", "join", "join_disabled"))
        even.append([model, ranks] + plain.columns()[:2] + join.columns() + [
            num(join.median_ms - plain.median_ms)] + disabled.columns())
        row, point = _uneven_row(samples, cell)
        uneven.append([model, ranks] + row)
        for name, value in zip(series, (join.point(True),
                                        disabled.point(True), point)):
            series[name].append(value)
    summary.sections += [
        ("Even inputs", table(EVEN_HEADER, even)),
        ("Uneven inputs: rank 0 joins early", table(UNEVEN_HEADER, uneven))]
    panel = Panel("Step time against plain DDP (per-round p10–p90)",
                  "model, ranks", "ratio of medians", labels, lines=False,
                  reference=1)
    for name, points in series.items():
        panel.add(name, points)
    summary.panels = [panel]
    return summary
