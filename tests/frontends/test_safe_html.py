"""What our pages make of student text, checked on the HTML itself (tests/frontends/test_browser.py opens the pages
in a browser; these hold where chromium is not installed too)."""

from __future__ import annotations

import pytest

from graders.frontends.grade.outputs.html_page import page
from graders.frontends.safe_html import CONTENT_SECURITY_POLICY_META, sanitized

HOSTILE = ('<script>alert(1)</script><img src=x onerror="alert(2)"><a href="javascript:alert(3)">a</a>'
           '<a href=" JaVa&#x09;script:alert(4)">b</a><svg onload="alert(5)"></svg><iframe srcdoc="x"></iframe>'
           '<details open ontoggle="alert(6)"></details><style>*{}</style><meta http-equiv="refresh" content="0">'
           '<img src="data:image/png;base64,AAAA"><form action="https://example.org"><input></form>')


def test_sanitized_markdown_keeps_text_and_safe_links_and_drops_whatever_could_run() -> None:
    clean = sanitized(HOSTILE + '<p>kept <a href="https://example.org/x">link</a> <a href="#anchor">here</a></p>')
    for gone in ("<script", "alert(1)", "onerror", "javascript", "<svg", "onload", "<iframe", "ontoggle", "<style",
                 "<meta", "data:", "<form", "<input"):
        assert gone not in clean.lower(), (gone, clean)
    assert '<a href="https://example.org/x"' in clean and '<a href="#anchor"' in clean and "kept" in clean


def test_every_batch_page_starts_its_head_with_the_policy() -> None:
    html = page('a "title" <script>', "<p>body</p>")
    assert html.index("<head>") + len("<head>") == html.index(CONTENT_SECURITY_POLICY_META)
    assert "<title>a &quot;title&quot; &lt;script&gt;</title>" in html


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
