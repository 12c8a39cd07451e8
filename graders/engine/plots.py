"""Pictures for feedback: a student's loss curve drawn against the reference's.

Matplotlib is imported only when a plot is written (a passing run never pays for it),
and always with the Agg canvas, so grading needs no display.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence


@dataclass(frozen=True)
class LossCurves:
    """A loss-curve picture a failure asks for, drawn only if its message is shown in full (a
    later check that fails for the same cause says "same cause as above" and needs none):
    drawing costs more than most checks."""

    path: Path
    curves: Mapping[str, Sequence[float]]
    title: str

    def draw(self) -> str | None:
        """The PNG's path once drawn; None when it could not be (a picture is extra: never a grade)."""
        try:
            return str(loss_curves(self.path, self.curves, self.title))
        except (ImportError, OSError):
            return None


def warm_up() -> None:
    """Import matplotlib and draw one small picture, so that processes forked after this draw
    their first plot in a tenth of a second instead of most of a second (the batch grader)."""
    import io

    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(2, 1.5), dpi=50)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    axes.plot([0, 1], [1.0, 0.1], label="loss")
    axes.set_yscale("log")
    axes.legend(fontsize=8)
    figure.savefig(io.BytesIO(), format="png")


def loss_curves(path: Path, curves: Mapping[str, Sequence[float]], title: str) -> Path:
    """Draw each named loss curve against its step number, on a log scale, into a PNG at `path`."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4.2), dpi=100)
    FigureCanvasAgg(figure)
    axes = figure.add_subplot()
    for (label, losses), style in zip(curves.items(), ("-", "--", ":", "-.")):
        # A log scale cannot show 0, negatives, inf or nan: leave gaps there and say where it blew up.
        shown = [loss if math.isfinite(loss) and loss > 0 else math.nan for loss in losses]
        blown = next((step for step, loss in enumerate(losses) if not math.isfinite(loss)), None)
        note = f" (inf or nan from step {blown})" if blown is not None else ""
        marker = "o" if len(shown) <= 20 else None  # a run of a few steps would be a dot or nothing
        axes.plot(range(len(shown)), shown, style, marker=marker, linewidth=1.6, label=label + note)
    axes.set_yscale("log")
    axes.set_xlabel("step")
    axes.set_ylabel("loss (log scale)")
    axes.set_title(title, fontsize=9)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.subplots_adjust(left=0.11, right=0.97, bottom=0.12, top=0.91)  # fixed: tight_layout costs a whole draw
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="png")
    return path
