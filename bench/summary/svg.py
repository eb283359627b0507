"""Plots written directly as SVG: panels side by side, each a chart of
series over categories (world sizes, depths, hooks...) with error bars, a
legend and labelled axes, on a linear or a log scale."""

import math
from xml.sax.saxutils import escape

COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
          "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
PANEL_W, HEIGHT = 620, 420
LEFT, TOP, PLOT_W, PLOT_H = 70, 46, 320, 250


class Panel:
    """A chart: `categories` along x; add() a series of one point per
    category, (y, low, high) with low/high None for no error bar, or None
    for no point. `reference`: a dashed horizontal line (e.g. ratio 1)."""

    def __init__(self, title, xlabel, ylabel, categories, log=False,
                 lines=True, reference=None):
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.categories = [str(c) for c in categories]
        self.log, self.lines, self.reference = log, lines, reference
        self.series = []

    def add(self, label, points):
        self.series.append((label, points))


def _nice_step(span):
    raw = span / 5
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 5, 10) if m * power >= raw)


def _scale(panel):
    """(ticks, y -> pixel) covering every point, error bar and reference."""
    ys = [v for _, points in panel.series for p in points if p
          for v in p if v is not None and (v > 0 or not panel.log)]
    if panel.reference is not None:
        ys.append(panel.reference)
    ys = ys or [1.0]
    if panel.log:
        low = math.floor(math.log10(min(ys)))
        high = max(math.ceil(math.log10(max(ys))), low + 1)
        multiples = (1, 2, 5) if high - low <= 3 else (1,)
        ticks = [m * 10.0 ** e for e in range(low, high + 1) for m in multiples
                 if m * 10.0 ** e <= 10.0 ** high]
        def to_y(v):
            return TOP + PLOT_H * (high - math.log10(v)) / (high - low)
        return ticks, to_y
    step = _nice_step(max(ys) or 1.0)
    ticks = [k * step for k in range(int(max(ys) / step) + 2)]
    def to_y(v):
        return TOP + PLOT_H * (1 - v / ticks[-1])
    return ticks, to_y


def _text(x, y, text, size=12, anchor="middle", extra=""):
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" '
            f'text-anchor="{anchor}" {extra}>{escape(text)}</text>')


def _line(x1, y1, x2, y2, color="#000", extra=""):
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{color}" {extra}/>')


def _rotated(panel):
    """Whether the category labels are long enough to be slanted."""
    return max(len(c) for c in panel.categories) > 6


def _axes(panel, ticks, to_y):
    out = [_text(LEFT, 24, panel.title, 14, "start", 'font-weight="bold"'),
           f'<rect x="{LEFT}" y="{TOP}" width="{PLOT_W}" height="{PLOT_H}" '
           'fill="none" stroke="#444"/>']
    for t in ticks:
        y = to_y(t)
        out.append(_line(LEFT, y, LEFT + PLOT_W, y, "#ddd"))
        out.append(_text(LEFT - 6, y + 4, f"{t:g}", 11, "end"))
    if panel.reference is not None:
        y = to_y(panel.reference)
        out.append(_line(LEFT, y, LEFT + PLOT_W, y, "#444",
                         'stroke-dasharray="5,4"'))
    rotate = _rotated(panel)
    for i, c in enumerate(panel.categories):
        x = LEFT + PLOT_W * (i + 0.5) / len(panel.categories)
        y = TOP + PLOT_H + 16
        out.append(_text(x, y, c, 11, "end", f'transform="rotate(-35 {x:.1f} '
                         f'{y:.1f})"') if rotate else _text(x, y, c, 11))
    out.append(_text(LEFT + PLOT_W / 2, HEIGHT - 8 if rotate else
                     TOP + PLOT_H + 40, panel.xlabel, 12))
    out.append(_text(18, TOP + PLOT_H / 2, panel.ylabel, 12, "middle",
                     f'transform="rotate(-90 18 {TOP + PLOT_H / 2:.1f})"'))
    return out


def _series(panel, to_y):
    out = []
    n, count = len(panel.categories), len(panel.series)
    # Points of a category side by side, unless lines join them.
    width = 0 if panel.lines else min(8.0, PLOT_W / n / (count + 1))
    for j, (label, points) in enumerate(panel.series):
        color = COLORS[j % len(COLORS)]
        offset = (j - (count - 1) / 2) * width
        xy = [(LEFT + PLOT_W * (i + 0.5) / n + offset, to_y(p[0]))
              if p is not None and (p[0] > 0 or not panel.log) else None
              for i, p in enumerate(points)]
        if panel.lines:
            run = [f"{x:.1f},{y:.1f}" for x, y in filter(None, xy)]
            out.append(f'<polyline points="{" ".join(run)}" fill="none" '
                       f'stroke="{color}" stroke-width="1.5"/>')
        for p, at in zip(points, xy):
            if at is None:
                continue
            x, y = at
            if p[1] is not None and p[2] is not None and (
                    not panel.log or p[1] > 0):
                out.append(_line(x, to_y(p[1]), x, to_y(p[2]), color))
                for v in p[1:]:
                    out.append(_line(x - 3, to_y(v), x + 3, to_y(v), color))
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" '
                       f'fill="{color}"/>')
        ly = TOP + 8 + 18 * j
        out.append(_line(LEFT + PLOT_W + 16, ly, LEFT + PLOT_W + 36, ly,
                         color, 'stroke-width="3"'))
        out.append(_text(LEFT + PLOT_W + 42, ly + 4, label, 12, "start"))
    return out


def write(path, panels):
    height = HEIGHT if any(_rotated(p) for p in panels) else HEIGHT - 70
    parts = []
    for k, panel in enumerate(panels):
        ticks, to_y = _scale(panel)
        parts.append(f'<g transform="translate({k * PANEL_W} 0)">')
        parts += _axes(panel, ticks, to_y) + _series(panel, to_y) + ["</g>"]
    with open(path, "w") as out:
        out.write(f'<svg xmlns="http://www.w3.org/2000/svg" '
                  f'width="{PANEL_W * len(panels)}" height="{height}" '
                  f'font-family="sans-serif">\n<rect width="100%" '
                  f'height="100%" fill="white"/>\n' + "\n".join(parts) +
                  "\n</svg>\n")
