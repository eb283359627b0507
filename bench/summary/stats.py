"""The statistics of bench/README.md's "Method" and how numbers are shown."""

import statistics

DASH = "–"


def median(xs):
    return statistics.median(xs) if xs else None


def percentile(xs, q):
    """Linear interpolation between order statistics, as numpy's default."""
    if not xs:
        return None
    xs = sorted(xs)
    at = (len(xs) - 1) * q
    low = int(at)
    high = min(low + 1, len(xs) - 1)
    return xs[low] + (xs[high] - xs[low]) * (at - low)


def ratio(a, b):
    return a / b if a is not None and b else None


def round_ratios(mode_rows, base_rows):
    """Per round that both ran, the ratio of the medians of its steps."""
    def by_round(rows):
        rounds = {}
        for r in rows:
            rounds.setdefault(r["round"], []).append(r["value"])
        return rounds
    mode, base = by_round(mode_rows), by_round(base_rows)
    return [median(mode[r]) / median(base[r]) for r in mode if r in base]


def num(x, scale=1.0):
    """About three significant digits: 0.46, 5.32, 15.9, 124."""
    if x is None:
        return DASH
    x *= scale
    if abs(x) < 10:
        return f"{x:.2f}"
    return f"{x:.1f}" if abs(x) < 100 else f"{x:.0f}"


def spread(xs, scale=1.0):
    """"0.48–2.68": the 10th–90th percentile."""
    if not xs:
        return DASH
    return (f"{num(percentile(xs, 0.1), scale)}–"
            f"{num(percentile(xs, 0.9), scale)}")


def times(x):
    return DASH if x is None else f"{x:.2f}"
