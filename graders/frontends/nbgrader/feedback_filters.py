"""The Jinja filters of the feedback template (templates/graders-feedback/graders.html.j2), so that
nothing a student's notebook holds runs in the browser of whoever opens `nbgrader generate_feedback`'s page.

Under autograde no student cell runs: the outputs of a student's cells are what the handed-in file
says, whatever it says. So an output shows as a picture whose data: URL we write (PNG or JPEG,
its bytes checked as base64), or as its plain text, escaped; an output that is only HTML,
JavaScript, SVG, markdown, LaTeX or a widget is named, not shown. Markdown cells are rendered by
nbconvert, then sanitized (graders.frontends.safe_html.sanitized). The template registers these in the
course's nbgrader_config.py (c.HTMLExporter.filters); a template without them fails to compile,
so a page is never written unsanitized.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from nbconvert.filters import ansi2html

from graders.frontends.safe_html import CONTENT_SECURITY_POLICY_META, escape

PICTURES = ("image/png", "image/jpeg")
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")
_SCRIPT = re.compile(r"<script\b.*?</script\s*>", re.IGNORECASE | re.DOTALL)
_TITLE = re.compile(r"(<title>)(.*?)(</title>)", re.IGNORECASE | re.DOTALL)


def head_with_policy(head: str) -> str:
    """nbgrader's page head with our Content-Security-Policy first in it, without the <script>
    elements it brings (MathJax from a CDN, which the policy would stop anyway: math shows as TeX),
    and with its title (the notebook's name, which nbgrader's template prints as it is) escaped."""
    if "<head>" not in head:
        raise ValueError("the feedback template's header has no <head> to put the Content-Security-Policy in")
    head = _TITLE.sub(lambda found: found[1] + escape(found[2]) + found[3], _SCRIPT.sub("", head), count=1)
    return head.replace("<head>", f"<head>\n{CONTENT_SECURITY_POLICY_META}", 1)


def output_html(output: Mapping[str, Any]) -> str:
    """A display_data or execute_result output: its picture, else its text, else a note naming what it was."""
    data = output.get("data") or {}
    metadata = output.get("metadata") or {}
    for mimetype in PICTURES:
        picture = _picture(mimetype, data.get(mimetype), metadata.get(mimetype) or {})
        if picture:
            return f'<div class="output_subarea output_{mimetype.split("/")[1]}">{picture}</div>'
    text = data.get("text/plain")
    if isinstance(text, str):
        return f'<div class="output_text output_subarea"><pre>{ansi2html(text)}</pre></div>'
    kinds = ", ".join(sorted(str(kind) for kind in data)) or "nothing"
    return (f'<div class="output_text output_subarea"><pre>[an output of {escape(kinds)}: '
            f"not shown in feedback, which shows no HTML, script or SVG from a notebook]</pre></div>")


def _picture(mimetype: str, encoded: object, metadata: Mapping[str, Any]) -> str:
    """An <img> of base64 bytes under a data: URL of our own type, or '' if the bytes are not plain base64."""
    if not isinstance(encoded, str):
        return ""
    encoded = "".join(encoded.split())
    if not encoded or not _BASE64.fullmatch(encoded):
        return ""
    size = "".join(f' {side}="{int(metadata[side])}"' for side in ("width", "height")
                   if isinstance(metadata.get(side), int) and not isinstance(metadata.get(side), bool))
    return f'<img src="data:{mimetype};base64,{encoded}"{size} alt="">'
