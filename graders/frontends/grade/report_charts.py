"""The class report's charts: the score histogram and each exercise's pass rates, drawn with matplotlib.

Figures are drawn at twice the CSS pixel density and shown WIDTH inches wide at 96 px an inch (864 px,
inside the page's 60rem column): sharp on dense screens, and FONT points are 13 CSS px wherever the page
is that wide, so no label is under 11 px. Rates are coloured on a red-to-green scale; counts on axes are
whole students.
"""

from __future__ import annotations

import multiprocessing
import os
from typing import Any

from graders.frontends.grade.html_page import figure_png

WIDTH, DPI, FONT = 9.0, 192, 10


def draw_all(figures: list[tuple]) -> list[str]:
    """Each figure (its kind and data) as an inline picture, in order; drawn by forked processes,
    which inherit matplotlib from this one (nothing here runs torch, so forking is safe)."""
    if not figures:
        return []
    first = _drawn(figures[0])  # here, before the fork: matplotlib's imports and font caches are shared
    processes = min(len(figures) - 1, os.cpu_count() or 1)
    if processes < 2:
        return [first, *(_drawn(f) for f in figures[1:])]
    with multiprocessing.get_context("fork").Pool(processes) as pool:
        return [first, *pool.map(_drawn, figures[1:], chunksize=1)]


def _drawn(figure: tuple) -> str:
    kind, *data = figure
    return histogram(*data) if kind == "histogram" else pass_rates(*data)


def _figure(height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(WIDTH, height), dpi=DPI)
    FigureCanvasAgg(figure)
    return figure


def histogram(scores: list[float], points: float, basis: str) -> str:
    from matplotlib.ticker import MaxNLocator

    figure = _figure(3.2)
    axes = figure.add_subplot()
    axes.hist(scores, bins=20, range=(0, points), color="#4c72b0")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_xlabel(f"{basis} score (points)", fontsize=FONT)
    axes.set_ylabel("students", fontsize=FONT)
    axes.tick_params(labelsize=FONT)
    figure.tight_layout()
    return figure_png(figure, width=round(WIDTH * 96), alt="histogram of the class's scores")


def pass_rates(slug: str, bars: list[tuple[str, float | None, int]]) -> str:
    from matplotlib import colormaps

    figure = _figure(0.32 * len(bars) + 0.9)
    axes = figure.add_subplot()
    scale = colormaps["RdYlGn"]
    labels = [label for label, _, _ in bars][::-1]
    rates = [(rate or 0.0) * 100 for _, rate, _ in bars][::-1]
    colors = [scale(0.1 + 0.8 * rate) if rate is not None else "#bbbbbb" for _, rate, _ in bars][::-1]
    axes.barh(labels, rates, color=colors)
    for y, (_, rate, tried) in enumerate(bars[::-1]):
        text = f"{rate:.0%} of {tried}" if rate is not None else "no one tried it"
        axes.text(min((rate or 0.0) * 100, 100) + 1, y, text, va="center", fontsize=FONT)
    axes.set_xlim(0, 120)
    axes.set_xticks(range(0, 101, 20))
    axes.set_xlabel("passed (%), of the students who wrote the function and did not time out", fontsize=FONT)
    axes.tick_params(labelsize=FONT)
    figure.tight_layout()
    return figure_png(figure, width=round(WIDTH * 96), alt=f"pass rate of each check of {slug}")
