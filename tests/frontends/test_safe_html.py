"""What our pages make of student text (graders/frontends/safe_html.py), checked on the HTML itself
(tests/frontends/test_browser.py opens the pages in a browser; these hold where chromium is not installed too)."""

from __future__ import annotations

from graders.frontends.safe_html import sanitized

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
