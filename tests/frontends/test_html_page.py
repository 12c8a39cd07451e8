"""The batch's HTML pages (graders/frontends/grade/outputs/html_page.py): each head starts with the content security
policy, and the title is escaped."""

from __future__ import annotations

from graders.frontends.grade.outputs.html_page import page
from graders.frontends.safe_html import CONTENT_SECURITY_POLICY_META


def test_every_batch_page_starts_its_head_with_the_policy() -> None:
    html = page('a "title" <script>', "<p>body</p>")
    assert html.index("<head>") + len("<head>") == html.index(CONTENT_SECURITY_POLICY_META)
    assert "<title>a &quot;title&quot; &lt;script&gt;</title>" in html
