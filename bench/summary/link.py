"""The link benchmark: the DDP step of a 25 M-parameter model under each
hook across two emulated hosts, at each link speed, against the plain
allreduce and against PyTorch's Python DDP; and each hook's crossover."""

from .report import Summary, table
from .stats import median, num, percentile, ratio, round_ratios, spread, times
from .svg import Panel

BASE = "allreduce"
# Goals of the issue that asked for this benchmark (bench/README.md, "Link").
SLOW_LINK_GOALS = {"fp16_compress": 0.6, "powersgd(rank=1)": 0.25}
FAST_LINK_LIMIT = 1.2


def _links(samples, **cell):
    """(link, measured Gbit/s) in order of speed."""
    found = []
    for link in samples.distinct("link", side="cpp", **cell):
        gbits = median(samples.values(link=link, mode="link",
                                      metric="gbit_per_s", **cell))
        found.append((link, gbits))
    return sorted(found, key=lambda lg: lg[1] or 0)


def _steps(samples, **match):
    return samples.where(metric="step_us", **match)


def _median_ms(rows):
    us = [r["value"] for r in rows]
    return median(us) and median(us) / 1000


def _fit(points):
    """Least squares of t = a + b / gbits over (gbits, ms): a is the step
    without the link, b the link's share at 1 Gbit/s."""
    xs = [1 / g for g, _ in points]
    ts = [t for _, t in points]
    n = len(points)
    mx, mt = sum(xs) / n, sum(ts) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if n < 2 or sxx == 0:
        return None
    b = sum((x - mx) * (t - mt) for x, t in zip(xs, ts)) / sxx
    return mt - b * mx, b


def _crossover(hook, base, fastest):
    """Where the fitted lines of a hook and the allreduce meet, in words."""
    if hook is None or base is None:
        return "–"
    (ah, bh), (a0, b0) = hook, base
    if bh >= b0:
        return "never: it puts as much on the link per step, or more"
    if ah <= a0:
        return "at every speed: no slower off the link either"
    gbits = (b0 - bh) / (ah - a0)
    beyond = " (beyond the fastest link measured)" if gbits > fastest else ""
    return f"below {gbits:.3g} Gbit/s{beyond}"


def summarise(samples):
    summary = Summary("Link: DDP step time against link speed", "link")
    facts, goals = [], []
    for hosts, ranks in samples.distinct("hosts", "ranks", side="cpp"):
        cell = {"hosts": hosts, "ranks": ranks}
        per_host = int(ranks) // int(hosts)
        where = (f"{hosts} host{'s' * (int(hosts) > 1)} x {per_host} "
                 f"rank{'s' * (per_host > 1)}")
        links = _links(samples, **cell)
        facts += [[where, link, num(gbits)] for link, gbits in links]
        modes = [m for m in samples.distinct(
            "mode", side="cpp", metric="step_us", **cell)]
        rows, fits = [], {}
        ms_points = {m: [] for m in modes}
        ratio_points = {m: [] for m in modes}
        for link, gbits in links:
            at = dict(cell, link=link)
            base = _steps(samples, side="cpp", mode=BASE, **at)
            for mode in modes:
                mine = _steps(samples, side="cpp", mode=mode, **at)
                py = _steps(samples, side="python", mode=mode, **at)
                ms, py_ms = _median_ms(mine), _median_ms(py)
                step_ratio = ratio(ms, _median_ms(base))
                sent = max(samples.per_rank("sent_bytes:", side="cpp",
                                            mode=mode, **at) or [0])
                rows.append([
                    link, num(gbits), mode, num(ms),
                    spread([r["value"] for r in mine], 1e-3),
                    times(step_ratio), spread(round_ratios(mine, base)),
                    num(sent / 1e6), num(py_ms), times(ratio(ms, py_ms))])
                us = [r["value"] / 1000 for r in mine]
                ms_points[mode].append(
                    (ms, percentile(us, 0.1), percentile(us, 0.9)) if us
                    else None)
                ratio_points[mode].append((step_ratio, None, None))
                goals += _goal_rows(where, link, links, mode, step_ratio,
                                    ms, py_ms)
        for mode in modes:
            points = [(g, p[0]) for (_, g), p in zip(links, ms_points[mode])
                      if p and g]
            fits[mode] = _fit(points) if len(points) > 1 else None
        summary.sections.append((f"{where}: step time and bytes", table(
            ["link", "Gbit/s measured", "mode", "step ms", "p10–p90",
             f"/ {BASE}", "per round p10–p90", "MB given to c10d per step",
             "Python ms", "C++ / Python"], rows)))
        cross = [[m, num(fits[m][0]) if fits[m] else "–",
                  num(fits[m][1]) if fits[m] else "–",
                  _crossover(fits[m], fits.get(BASE), links[-1][1] or 0)]
                 for m in modes if m != BASE]
        summary.sections.append((f"{where}: where each mode pays", table(
            ["mode", "a: ms off the link", "b: ms per step at 1 Gbit/s",
             f"faster than {BASE}"], cross)))
        labels = [f"{link} ({num(g)})" for link, g in links]
        ms_panel = Panel(f"{where}: step time", "link (measured Gbit/s)",
                         "ms per step (median, p10–p90, log)", labels,
                         log=True)
        ratio_panel = Panel(f"{where}: step time / {BASE}",
                            "link (measured Gbit/s)", "ratio of medians",
                            labels, reference=1)
        for mode in modes:
            ms_panel.add(mode, ms_points[mode])
            ratio_panel.add(mode, ratio_points[mode])
        summary.panels += [ms_panel, ratio_panel]
    summary.sections.insert(0, ("Links, as measured", table(
        ["hosts x ranks", "link (tc rate)", "Gbit/s rank 0 to the next host"],
        facts)))
    summary.sections.append(("Goals", table(
        ["hosts x ranks", "link", "goal", "measured", "met"], goals)))
    return summary


def _goal_rows(where, link, links, mode, step_ratio, ms, py_ms):
    rows = []
    slowest, fastest = links[0][0], links[-1][0]
    if link == slowest and mode in SLOW_LINK_GOALS:
        goal = SLOW_LINK_GOALS[mode]
        rows.append([where, link, f"{mode} <= {goal}x {BASE}",
                     times(step_ratio), _met(step_ratio, goal)])
    if link == fastest and mode != BASE:
        rows.append([where, link, f"{mode} <= {FAST_LINK_LIMIT}x {BASE}",
                     times(step_ratio), _met(step_ratio, FAST_LINK_LIMIT)])
    if py_ms:
        rows.append([where, link, f"{mode}: C++ <= Python",
                     times(ratio(ms, py_ms)), _met(ratio(ms, py_ms), 1)])
    return rows


def _met(value, limit):
    return "–" if value is None else ("yes" if value <= limit else "no")
