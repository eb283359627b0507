"""DDP step: distalgo's C++ DDP against PyTorch's Python DDP, per hook."""

from .report import Summary, table
from .stats import DASH, median, num, ratio, spread, times
from .svg import Panel

HEADER = ["model", "ranks", "hook", "C++ ms", "C++ p10–p90", "Python ms",
          "Python p10–p90", "C++ / Python", "bytes/step/rank (C++, counted)",
          "bytes/step/rank (Python, expected)"]


def _bytes(samples, side, **cell):
    """'848 (allreduce ×1)': rank 0's bytes per step and its collectives,
    counted (C++) or expected (Python: "n/a" where not known ahead)."""
    sent, calls = 0, []
    for metric in samples.distinct("metric", round="-", side=side, **cell):
        first = samples.values(metric=metric, round="-", side=side, **cell)[0]
        if metric.startswith("sent_bytes:"):
            sent += first
        if metric.startswith("calls:"):
            calls.append(f"{metric.partition(':')[2]} ×{first:g}")
    if side == "python" and not samples.where(round="-", side=side, **cell):
        return "n/a" if samples.where(side=side, **cell) else DASH
    return f"{sent:.0f}" + (f" ({', '.join(calls)})" if calls else "")


def summarise(samples):
    summary = Summary("DDP step: C++ (distalgo) against PyTorch's Python DDP",
                      "ddp-step")
    rows, ratios = [], {}
    for model, ranks, hook in samples.distinct("model", "ranks", "mode",
                                               side="cpp"):
        cell = {"model": model, "ranks": ranks, "mode": hook}
        cpp = samples.values(side="cpp", metric="step_us", **cell)
        py = samples.values(side="python", metric="step_us", **cell)
        r = ratio(median(cpp), median(py))
        rows.append([model, ranks, hook, num(median(cpp), 1e-3),
                     spread(cpp, 1e-3), num(median(py), 1e-3) if py else DASH,
                     spread(py, 1e-3), times(r),
                     _bytes(samples, "cpp", **cell),
                     _bytes(samples, "python", **cell)])
        if r is not None:
            ratios.setdefault((model, ranks), {})[hook] = r
    overview = [[model, ranks, len(by_hook), times(min(by_hook.values())),
                 times(median(list(by_hook.values()))),
                 times(max(by_hook.values())),
                 ", ".join(h for h, r in by_hook.items() if r > 1) or "none"]
                for (model, ranks), by_hook in ratios.items()]
    summary.sections += [
        ("Time per step", table(HEADER, rows)),
        ("C++ / Python over the hooks both sides ran", table(
            ["model", "ranks", "hooks", "min", "median", "max",
             "C++ slower in"], overview))]
    for model in samples.distinct("model"):
        hooks = samples.distinct("mode", model=model, side="cpp")
        panel = Panel(f"{model}: step time by hook", "hook",
                      "ms per step (median, log scale)", hooks, log=True,
                      lines=False)
        for side, name in (("cpp", "C++"), ("python", "Python")):
            for ranks in samples.distinct("ranks", model=model):
                panel.add(f"{name}, {ranks} ranks", [_point(
                    samples.values(side=side, model=model, ranks=ranks,
                                   mode=hook, metric="step_us"))
                    for hook in hooks])
        summary.panels.append(panel)
    return summary


def _point(us):
    return (median(us) / 1000, None, None) if us else None
