"""The filters nbgrader's feedback template runs (graders/frontends/nbgrader/feedback_filters.py): notebook outputs
shown as checked pictures, escaped text or a note, and a head that puts the policy first, drops scripts and
escapes the title. tests/frontends/test_browser.py opens the pages in a browser."""

from __future__ import annotations

import pytest

from graders.frontends.safe_html import CONTENT_SECURITY_POLICY_META


def test_notebook_outputs_show_as_checked_pictures_escaped_text_or_a_note() -> None:
    pytest.importorskip("nbconvert")  # the nbgrader extra
    from graders.frontends.nbgrader import feedback_filters as filters

    picture = filters.output_html({"data": {"image/png": "iVBO\nRw0K", "text/plain": "x"},
                                   "metadata": {"image/png": {"width": 40, "height": "9 onerror=alert(1)"}}})
    assert '<img src="data:image/png;base64,iVBORw0K" width="40" alt="">' in picture
    forged = filters.output_html({"data": {"image/png": 'x" onerror="alert(1)', "text/plain": "<b>repr</b>"}})
    assert "<img" not in forged and "&lt;b&gt;repr&lt;/b&gt;" in forged
    for kind in ("text/html", "application/javascript", "image/svg+xml", "text/markdown", "text/latex"):
        note = filters.output_html({"data": {kind: "<script>alert(1)</script>"}})
        assert "<script" not in note and f"an output of {kind}" in note


def test_the_feedback_head_puts_the_policy_first_drops_scripts_and_escapes_the_title() -> None:
    pytest.importorskip("nbconvert")  # the nbgrader extra
    from graders.frontends.nbgrader import feedback_filters as filters

    head = filters.head_with_policy('<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8" />\n<title>nb<b>x'
                                    '</title>\n<script src="https://cdn.example/mathjax.js"> </script>\n'
                                    '<script type="text/x-mathjax-config">init()</script>\n<style>p{}</style>\n</head>')
    assert head.index("<head>\n" + CONTENT_SECURITY_POLICY_META) < head.index("<meta charset")
    assert "<script" not in head and "<style>p{}</style>" in head
    assert "<title>nb&lt;b&gt;x</title>" in head
