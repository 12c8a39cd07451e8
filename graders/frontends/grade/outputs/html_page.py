"""The few pieces every HTML page of the batch grader shares: the page, escaping, pictures, lesson links.

Pages are self-contained (styles and pictures inline), so a student's feedback is one file
to hand back, readable offline. Everything a student controls (their id, file names, problems,
the messages that quote their values and printed output) goes on a page through `escape`, and
every page carries graders.frontends.safe_html's Content-Security-Policy, so that nothing on it can run.
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import course_config
from graders.frontends.safe_html import CONTENT_SECURITY_POLICY_META, escape

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #ccc; }
h3 { font-size: 1.05rem; margin-top: 1.2rem; }
table { border-collapse: collapse; margin: 0.5rem 0; } td, th { padding: 0.2rem 0.6rem; text-align: left; }
tr:nth-child(even) { background: #f6f6f6; } .pass { color: #1a7f37; } .fail { color: #b3261e; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; } small { color: #666; }
table.reteach tr.concept th { background: #e8eef7; font-weight: normal; padding-top: 0.4rem; }
td.mistake { padding-left: 1.5rem; } th.band, td.band { text-align: center; min-width: 2rem; }
table.ranked { font-size: 0.9rem; } table.ranked td, table.ranked th { padding: 0.2rem 0.4rem; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: 0.5rem; border-radius: 4px; }
.note { color: #8a5a00; } img { max-width: 100%; height: auto; }
"""


def page(title: str, body: str) -> str:
    """A whole page; `body` is HTML we built, with every piece of student text in it escaped."""
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head>{CONTENT_SECURITY_POLICY_META}<meta charset=\"utf-8\">"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}\n</body></html>\n")


def png(path: Path, alt: str) -> str:
    """A PNG file as an inline picture ('' if it cannot be read)."""
    try:
        data = base64.b64encode(path.read_bytes()).decode()
    except OSError:
        return ""
    return f'<img alt="{escape(alt)}" src="data:image/png;base64,{data}">'


def section_links(section: str) -> str:
    """The lesson sections a message names ("Worked example", ...), linked where the course says where
    the lesson lives (course_config.LESSON_URL), else as they are."""
    base = str(course_config.LESSON_URL.value)
    text = escape(section)
    if not base:
        return text
    return re.sub(r"&quot;(.+?)&quot;", lambda m: f'<a href="{escape(base)}#{_anchor(html.unescape(m.group(1)))}">'
                                                  f"&quot;{m.group(1)}&quot;</a>", text)


def _anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
