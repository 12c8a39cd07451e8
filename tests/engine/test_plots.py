"""Loss-curve pictures in the feedback (graders/engine/plots.py): drawn into a PNG where asked, with any value a log
scale cannot show (0, negatives, inf, nan) left as a gap rather than an error, and a picture that cannot be written
is no picture, never a failed grade."""

from __future__ import annotations

import math
from pathlib import Path

from graders.engine.plots import LossCurves, loss_curves

PNG = b"\x89PNG\r\n\x1a\n"


def test_curves_are_drawn_into_a_png_in_a_folder_made_for_it(tmp_path: Path) -> None:
    path = loss_curves(tmp_path / "plots" / "fit.png", {"yours": [1.0, 0.5, 0.25], "reference": [1.0, 0.1, 0.01]},
                       "fit: loss by step")
    assert path == tmp_path / "plots" / "fit.png" and path.read_bytes().startswith(PNG)


def test_values_a_log_scale_cannot_show_leave_gaps(tmp_path: Path) -> None:
    path = loss_curves(tmp_path / "blown.png", {"yours": [1.0, 0.0, -2.0, math.inf, math.nan]}, "blown up")
    assert path.read_bytes().startswith(PNG)


def test_a_picture_that_cannot_be_written_is_none(tmp_path: Path) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    assert LossCurves(blocker / "inside.png", {"yours": [1.0]}, "t").draw() is None
    drawn = LossCurves(tmp_path / "ok.png", {"yours": [1.0, 0.5]}, "t").draw()
    assert drawn == str(tmp_path / "ok.png")
