"""The class report's charts: the score histogram and each exercise's pass rates, as inline SVG.

The charts are SVG elements written here (bars and text), not pictures: they stay sharp at any zoom or
screen density, their labels are text (found by the browser's search, read by screen readers), and a
class's fifteen charts take milliseconds, where drawing and compressing them as PNGs with matplotlib took
about two CPU-seconds at the end of every batch. Each chart is WIDTH CSS pixels wide where the page's column
allows (it shrinks with a narrower one, never grows) and its labels are FONT px at that width. Rates are
coloured on a red-to-green scale; the histogram counts whole students.
"""

from __future__ import annotations

import math
from html import escape

WIDTH, FONT = 864, 13
BAR_COLOUR, UNTRIED_COLOUR, INK = "#4c72b0", "#bbbbbb", "#222222"
# ColorBrewer's RdYlGn (11 classes), red to green: a rate r is shown at 0.1 + 0.8 r along it, so that neither end
# is the scale's darkest colour.
_RED_TO_GREEN = ("#a50026", "#d73027", "#f46d43", "#fdae61", "#fee08b", "#ffffbf", "#d9ef8b", "#a6d96a", "#66bd63",
                 "#1a9850", "#006837")
_CHAR = 0.6 * FONT  # a label's width per character, about, in the page's sans-serif font


def histogram(scores: list[float], points: float, basis: str, bins: int = 20) -> str:
    """How many students scored in each twentieth of the points."""
    counts = [0] * bins
    for score in scores:
        if 0 <= score <= points:
            counts[min(int(score / points * bins), bins - 1) if points > 0 else 0] += 1
    step = _count_step(max(counts, default=0))
    top = max(step, math.ceil(max(counts, default=0) / step) * step)
    left, right, above, below, height = 56, 16, 12, 52, 236
    plot = WIDTH - left - right
    parts = [_axis_line(left, above + height, left + plot, above + height)]
    for tick in range(0, top + 1, step):
        y = above + height - tick / top * height
        parts.append(_text(left - 8, y + FONT / 3, str(tick), anchor="end", kind="tick-y"))
    for index, count in enumerate(counts):
        low, high = points * index / bins, points * (index + 1) / bins
        bar = count / top * height
        parts.append(f'<rect x="{left + index * plot / bins + 1:.1f}" y="{above + height - bar:.1f}" '
                     f'width="{plot / bins - 2:.1f}" height="{bar:.1f}" fill="{BAR_COLOUR}"><title>{low:g} to '
                     f'{high:g} points: {count} student{"" if count == 1 else "s"}</title></rect>')
    for fifth in range(6):
        x = left + fifth * plot / 5
        parts.append(_text(x, above + height + FONT + 6, f"{points * fifth / 5:g}", kind="tick-x"))
    parts.append(_text(left + plot / 2, above + height + 2 * FONT + 18, f"{basis} score (points)"))
    parts.append(_text(16, above + height / 2, "students", rotate=True))
    return _svg(above + height + below, "histogram of the class's scores", parts)


def pass_rates(slug: str, bars: list[tuple[str, float | None, int]]) -> str:
    """Each check's pass rate, a bar each, labelled with the rate and how many students it is of."""
    row, above, below = 28, 8, 48
    left = min(max((len(label) for label, _, _ in bars), default=0) * _CHAR + 16, WIDTH / 2)
    plot = WIDTH - left - 16
    scale = plot / 120  # px per percent: the bars reach 100, their labels the rest
    parts = []
    for index, (label, rate, tried) in enumerate(bars):
        y = above + index * row
        middle = y + row / 2 + FONT / 3
        parts.append(_text(left - 8, middle, label, anchor="end"))
        width = (rate or 0.0) * 100 * scale
        colour = _rate_colour(rate) if rate is not None else UNTRIED_COLOUR
        said = f"{rate:.0%} of {tried}" if rate is not None else "no one tried it"
        parts.append(f'<rect x="{left:.1f}" y="{y + 4}" width="{width:.1f}" height="{row - 8}" fill="{colour}">'
                     f'<title>{escape(label)}: {said}</title></rect>')
        parts.append(_text(left + width + 6, middle, said, anchor="start"))
    bottom = above + len(bars) * row
    parts.append(_axis_line(left, bottom, left + 100 * scale, bottom))
    for percent in range(0, 101, 20):
        parts.append(_text(left + percent * scale, bottom + FONT + 6, str(percent), kind="tick-x"))
    parts.append(_text(left + 50 * scale, bottom + 2 * FONT + 16,
                       "passed (%), of the students who wrote the function and did not time out"))
    return _svg(bottom + below, f"pass rate of each check of {slug}", parts)


def _count_step(most: int) -> int:
    """A whole-student step between the count axis's ticks: 1, 2, 5, 10, 20, 50, ..., at most six ticks."""
    step = 1
    while most / step > 5:
        step = step * 5 // 2 if str(step).startswith("2") else step * 2
    return step


def _rate_colour(rate: float) -> str:
    at = (0.1 + 0.8 * min(max(rate, 0.0), 1.0)) * (len(_RED_TO_GREEN) - 1)
    low = min(int(at), len(_RED_TO_GREEN) - 2)
    a, b = _RED_TO_GREEN[low], _RED_TO_GREEN[low + 1]
    mix = [round(int(a[i:i + 2], 16) + (int(b[i:i + 2], 16) - int(a[i:i + 2], 16)) * (at - low)) for i in (1, 3, 5)]
    return "#" + "".join(f"{c:02x}" for c in mix)


def _text(x: float, y: float, text: str, *, anchor: str = "middle", kind: str = "", rotate: bool = False) -> str:
    turned = f' transform="rotate(-90 {x:.1f} {y:.1f})"' if rotate else ""
    named = f' class="{kind}"' if kind else ""
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}"{named}{turned}>{escape(text)}</text>'


def _axis_line(x1: float, y1: float, x2: float, y2: float) -> str:
    return f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{INK}"/>'


def _svg(height: float, alt: str, parts: list[str]) -> str:
    return (f'<svg role="img" aria-label="{escape(alt)}" width="{WIDTH}" viewBox="0 0 {WIDTH} {height:.0f}" '
            f'style="max-width:100%;height:auto" font-family="sans-serif" font-size="{FONT}" fill="{INK}">'
            f'<title>{escape(alt)}</title>{"".join(parts)}</svg>')
