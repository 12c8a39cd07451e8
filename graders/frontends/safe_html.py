"""Student text on the pages we write: shown as text, or as HTML a sanitizer has cleaned, never as it came.

Students control much of what a feedback page or report shows: markdown cells, code, outputs,
the messages that quote their values and printed output, their ids and file names. Whoever
opens the page (the student, the instructor, a TA) must not run a line of it. Two walls:

- what we put on a page is escaped (`escape`), or, where it is HTML by nature (rendered
  markdown), cleaned by a kept sanitizer (nh3, the Ammonia library's binding) to an allow-list of
  tags and attributes: no script, no style, no inline event handler, links to http(s), mailto
  and relative addresses only (`sanitized`);
- every page carries a Content-Security-Policy (`CONTENT_SECURITY_POLICY`) that lets it run no
  script, load nothing from the network and embed nothing: should the first wall ever let
  something through (a sanitizer bug, a template block nbconvert adds), it cannot run or call out.
"""

from __future__ import annotations

import html

# default-src 'none': no script (inline or not), no frame, no fetch, no font, no object.
# img-src data: the pictures we inline (PNG plots); an image a student links from the web would
#   tell its server who opened the page, and when.
# style-src 'unsafe-inline': our pages are self-contained and style themselves inline; CSS runs no code.
# base-uri / form-action 'none': these do not fall back to default-src; a <base> or a form that
#   slipped through could send relative links or typed text elsewhere.
CONTENT_SECURITY_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"
# A meta tag, not a header: the pages are files opened from disk or a course folder, with no server to send one.
# It must come first in <head>: it holds only for what the browser reads after it.
CONTENT_SECURITY_POLICY_META = f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'

# Rendered markdown needs no more than this. Left out on purpose: script, style, iframe, object,
# embed, form and input, svg and math (they parse their content their own way), meta, link, base.
_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "caption", "code", "dd", "del", "details", "div", "dl", "dt", "em",
    "h1", "h2", "h3", "h4", "h5", "h6", "hr", "i", "img", "ins", "kbd", "li", "ol", "p", "pre", "q", "s", "samp",
    "small", "span", "strike", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead",
    "tr", "tt", "u", "ul", "var",
}
# class and id: nbconvert's rendered markdown uses them for highlighted code and headings' anchors;
# they run nothing, and our pages have no script that a clobbered id could mislead.
_ATTRIBUTES = {
    "*": {"class", "id", "title"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height"},
    "td": {"colspan", "rowspan"},
    "th": {"colspan", "rowspan"},
    "ol": {"start"},
}
# No javascript:, data:, vbscript: or other scheme a browser would act on.
_URL_SCHEMES = {"http", "https", "mailto"}


def escape(text: object) -> str:
    """Any text as HTML text: what it says is shown, never parsed (attribute-safe too)."""
    return html.escape(str(text), quote=True)


def sanitized(fragment: str) -> str:
    """An HTML fragment from student text (e.g. rendered markdown) cleaned to what cannot run or call out."""
    import nh3  # here: only pages that render markdown need it (the nbgrader extra installs it)

    return nh3.clean(str(fragment), tags=_TAGS, attributes=_ATTRIBUTES, url_schemes=_URL_SCHEMES,
                     clean_content_tags={"script", "style"}, link_rel="noopener noreferrer nofollow")
