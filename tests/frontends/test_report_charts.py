"""The class report's charts (graders/frontends/grade/outputs/report_charts.py): whole students counted, labels
readable, numbers said as text, nothing that runs."""

from __future__ import annotations

import re

from graders.frontends.grade.outputs import report_charts


def test_charts_count_whole_students_label_at_11_px_or_more_and_say_their_numbers_as_text() -> None:
    histogram = report_charts.histogram([1.0, 2.5, 2.5, 90.0, 100.0], 100.0, "raw")
    rates = report_charts.pass_rates("views", [("as_grid_is_a_view", 0.5, 4),
                                               ("shares_memory_on_fresh_pairs [hidden]", None, 0)])
    ticks = re.findall(r'<text [^>]*class="tick-y"[^>]*>([^<]*)</text>', histogram)
    assert ticks and all(t.isdigit() for t in ticks), f"the histogram counts students, in whole numbers: {ticks}"
    bars = re.findall(r"<title>([^<]*points: \d+ students?)</title>", histogram)
    assert "0 to 5 points: 3 students" in bars and "95 to 100 points: 1 student" in bars, bars
    assert "50% of 4" in rates and "no one tried it" in rates
    for chart in (histogram, rates):
        shown = int(re.search(r'<svg [^>]*width="(\d+)"', chart).group(1))
        wide = float(re.search(r'viewBox="0 0 ([\d.]+) ', chart).group(1))
        size = float(re.search(r'<svg [^>]*font-size="([\d.]+)"', chart).group(1)) * shown / wide
        assert size >= 11 and "font-size" not in chart.split(">", 1)[1], f"labels under 11 px where shown: {size}"
        assert "<script" not in chart and not re.search(r"\son\w+=", chart), "a chart runs nothing"
