"""No student text runs in a browser: every HTML page we write or template, opened in a real headless
chromium, runs none of the hostile HTML a student can put in what it shows.

The batch grader's pages are tried with every student-controlled field hostile: the feedback page and the
instructor's view of it (with the term's standing), and the class report (with standings, concepts, causes and
similar pairs). The payloads try, each in its own way (<script>, <img onerror>, <svg onload>, <iframe srcdoc>,
<details ontoggle>, a <body onload> merged into the page's, <meta refresh>, <base>, javascript:
links, ...), to call a local HTTP server this test starts (at /fired-<how>) and to set
document.title. A page passes when the server heard nothing (under the page's
Content-Security-Policy, not even a plain image request), its title is its own, and its DOM holds no
script, frame or object element, no on* attribute and no javascript:/data: address but the
pictures we inline. Each wall is tried alone too: the pages with their policy removed (the
sanitizing alone), and raw payloads under the policy alone. A control proves the harness sees a
script that runs.

Chromium: Debian's `chromium` package (.ci/run installs it); without it these tests skip.
"""

from __future__ import annotations

import http.server
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

import course_config
from mistake_catalogue import submission
from graders.frontends.grade.outputs import tables
from graders.frontends.grade.outputs.feedback_html import feedback_html
from graders.frontends.grade.outputs.report import report_html
from graders.frontends.grade.term.standing import Person, Standing
from graders.frontends.grade.store import StudentRecord
from graders.frontends.safe_html import CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY_META

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install chromium; "
                                                         ".ci/run installs it)")

LESSON = course_config.LESSON_01
SLUG = "sin_exp_derivative"
ROOT = course_config.ROOT
STOLEN_TITLE = "pwned"
# What a page may ask of the server with its policy removed: a plain picture from the web that sanitizing
# keeps in rendered markdown (the policy is what stops it). Anything at /fired-... is code that ran.
PLAIN_PICTURES = ("/img", "/md-img")


class Listener:
    """A local HTTP server that records every path asked of it."""

    def __init__(self) -> None:
        heard: list[str] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # the name http.server calls
                heard.append(self.path)
                self.send_response(404)
                self.end_headers()

            do_POST = do_GET

            def log_message(self, *args: object) -> None:
                pass

        self.heard = heard
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.close()


def hostile_html(base: str, *, navigating: bool = True) -> str:
    """HTML that runs code in a browser that renders it, in every way we know; each calls base/fired-<how>.
    One leaves the page (<meta refresh>) unless not `navigating`."""
    def run(how: str) -> str:
        return f"fetch('{base}/fired-{how}');document.title='{STOLEN_TITLE}'"

    return "\n".join([
        f"<script>{run('script')}</script>",
        f'<img src="x" onerror="{run("img-onerror")}">',
        f'<img src="{base}/img">',
        f'<svg onload="{run("svg-onload")}"><circle r="5"/></svg>',
        f"<svg><script>{run('svg-script')}</script></svg>",
        f'<iframe srcdoc="<script>fetch(&quot;{base}/fired-iframe-srcdoc&quot;)</script>"></iframe>',
        f'<details open ontoggle="{run("details-ontoggle")}"><summary>more</summary></details>',
        f'<body onload="{run("body-onload")}">',
        f'<input autofocus onfocus="{run("input-onfocus")}">',
        f'<a href="javascript:{run("link")}">click me</a>',
        f'<object data="data:text/html,&lt;script&gt;fetch(\'{base}/fired-object\')&lt;/script&gt;"></object>',
        f'<meta http-equiv="refresh" content="0;url={base}/fired-refresh">' if navigating else "",
        f'<base href="{base}/fired-base/">',
        f"<style>@import url('{base}/fired-style');</style>",
        f'<math><mtext><table><mglyph><style><img src=x onerror="{run("mutation")}">',
        f'"><img src=x onerror="{run("attribute-breakout")}">',
        f"</pre></div></td></table><script>{run('breakout')}</script>",
    ])


def hostile_markdown(base: str) -> str:
    """Markdown a student may write: the hostile HTML inside it, and markdown's own links and pictures."""
    return (f"# My answer\n\nA [link](javascript:fetch('{base}/fired-md-link')) and ![a picture]({base}/md-img).\n\n"
            f"{hostile_html(base)}\n\n`<script>{STOLEN_TITLE}</script>` in code.\n")


class _Dom(HTMLParser):
    """What a dumped DOM holds that could run: elements, attributes, addresses; and its title."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self.title = ""
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._in_title = tag == "title"
        if tag in ("script", "iframe", "frame", "object", "embed", "base", "form") or (
                tag == "meta" and ("http-equiv", "refresh") in [(k, (v or "").lower()) for k, v in attrs]):
            self.found.append(f"<{tag}> element")
        for name, value in attrs:
            address = re.sub(r"\s", "", value or "").lower()
            if name.startswith("on") or name in ("srcdoc", "formaction"):
                self.found.append(f"<{tag} {name}=...>")
            elif name in ("href", "src", "action", "data", "xlink:href") and address.startswith(
                    ("javascript:", "vbscript:", "data:")):
                ours = tag == "img" and name == "src" and address.startswith(("data:image/png;", "data:image/jpeg;"))
                if not ours:
                    self.found.append(f"<{tag} {name}={value[:40]!r}>")

    def handle_endtag(self, tag: str) -> None:
        self._in_title = False

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data


class _Head(HTMLParser):
    """The first element in a page's <head>: a policy holds only for what the browser reads after it."""

    def __init__(self) -> None:
        super().__init__()
        self.first: tuple[str, dict[str, str | None]] | None = None
        self._in_head = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._in_head and self.first is None:
            self.first = (tag, dict(attrs))
        self._in_head = self._in_head or tag == "head"


_POLICY_META = re.compile(r"<meta[^>]*Content-Security-Policy[^>]*>", re.IGNORECASE)


def opened(page: Path, tmp_path: Path) -> str:
    """The page's DOM after chromium has loaded it and given its timers three seconds."""
    profile = tmp_path / f"chromium-profile-{time.monotonic_ns()}"
    run = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                          "--disable-background-networking", "--disable-component-update", "--disable-sync",
                          f"--user-data-dir={profile}", "--virtual-time-budget=3000", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "<html" in run.stdout, f"chromium failed:\n{run.stderr[-3000:]}"
    time.sleep(0.5)  # a request chromium sent just before it quit reaches the server's thread
    shutil.rmtree(profile, ignore_errors=True)
    return run.stdout


def assert_inert(page: Path, listener: Listener, tmp_path: Path, *, policy: bool = True) -> str:
    """Open the page (with its Content-Security-Policy removed unless `policy`) and assert nothing ran."""
    html = page.read_text(encoding="utf-8")
    head = _Head()
    head.feed(html)
    assert head.first == ("meta", {"http-equiv": "Content-Security-Policy", "content": CONTENT_SECURITY_POLICY}), (
        f"{page.name}: the first element in <head> should be our Content-Security-Policy, not {head.first}")
    if not policy:
        page = page.with_name(f"without-policy-{page.name}")
        page.write_text(_POLICY_META.sub("", html, count=1), encoding="utf-8")
    listener.heard.clear()
    dom = opened(page, tmp_path)
    parsed = _Dom()
    parsed.feed(dom)
    heard = listener.heard if policy else [path for path in listener.heard if path not in PLAIN_PICTURES]
    assert not heard, f"{page.name}: the page called the server: {heard}"
    assert STOLEN_TITLE not in parsed.title, f"{page.name}: a script set the title to {parsed.title!r}"
    assert not parsed.found, f"{page.name}: the DOM holds what could run: {parsed.found}"
    return dom


# ------------------------------------------------------------------ the harness and the policy alone


def test_the_harness_sees_a_script_that_runs(listener: Listener, tmp_path: Path) -> None:
    """Control: the raw payloads, unsanitized and with no policy, do run here; so the tests below can fail."""
    page = tmp_path / "raw.html"
    page.write_text(f"<!DOCTYPE html><html><head><title>raw</title></head><body>"
                    f"{hostile_html(listener.base, navigating=False)}</body></html>")
    dom = opened(page, tmp_path)
    parsed = _Dom()
    parsed.feed(dom)
    fired = {path for path in listener.heard if path.startswith("/fired-")}
    assert {"/fired-script", "/fired-img-onerror", "/fired-svg-onload", "/fired-details-ontoggle"} <= fired, fired
    assert parsed.title == STOLEN_TITLE
    assert parsed.found


def test_the_policy_alone_stops_the_raw_payloads(listener: Listener, tmp_path: Path) -> None:
    """The second wall by itself: the raw payloads under our Content-Security-Policy run nothing, load nothing.
    All but <meta refresh>: a policy does not stop the page from leaving (to an http address: javascript: stays
    stopped), which is one reason the first wall, sanitizing, is the one that must hold."""
    page = tmp_path / "raw-under-policy.html"
    page.write_text(f"<!DOCTYPE html><html><head>{CONTENT_SECURITY_POLICY_META}<title>raw</title></head>"
                    f"<body>{hostile_html(listener.base, navigating=False)}</body></html>")
    opened(page, tmp_path)
    assert not listener.heard, listener.heard


# ------------------------------------------------------------------ the batch grader's pages


def _hostile_record(base: str) -> StudentRecord:
    """A stored record whose every student-controlled field is hostile: id, problems, error, messages,
    evidence lines (they quote the student's values, printed output and source)."""
    payload = hostile_html(base)
    exercise = LESSON.exercise(SLUG)
    checks = [{"id": check.id, "passed": False, "score": 0, "points": check.points, "hidden": check.hidden,
               "message": f"printed: {payload}", "shown": f"returned {payload}", "mistake": payload, "files": [],
               "concept": payload, "cause": f"timeout of {payload}" if check.hidden else payload}
              for check in exercise.checks]
    return StudentRecord.from_dict({
        "student": f'mallory"><img src=x onerror="fetch(\'{base}/fired-id\')">', "score": 0.0,
        "max_score": LESSON.points, "problems": [f"two notebooks: {payload}"], "error": f"SyntaxError: {payload}",
        "integrity": [f"{SLUG}: {SLUG}.py line 3: {payload}"], "origin": f"submissions/{payload}",
        "exercises": [{"slug": SLUG, "score": 0, "max_score": exercise.points, "checks": checks,
                       "integrity": [payload]}]})


def _hostile_standing(base: str, student: str) -> Standing:
    """The term's standing of a student, with every piece of text that came from a roster, a ledger or an LMS
    export hostile: the roster's name and section, a decision's target, the notes, where the hand-in time came from."""
    payload = hostile_html(base)
    return Standing(student=student, person=Person(student, name=payload, section=payload), handed_in=True, raw=0.0,
                    max_score=LESSON.points, submitted_at=datetime(2025, 3, 2, 10, 0), submitted_how=payload,
                    due=datetime(2025, 3, 1, 23, 59), late_days=1, penalty=0.1, overrides={payload: 1.0},
                    final=1.0, notes=[f"decided: {payload}"])


@pytest.mark.parametrize("instructor", [False, True], ids=["students-page", "instructors-view"])
def test_the_batch_feedback_page_runs_nothing(listener: Listener, tmp_path: Path, instructor: bool) -> None:
    record = _hostile_record(listener.base)
    page = tmp_path / "feedback.html"
    standing = _hostile_standing(listener.base, record.student)
    page.write_text(feedback_html(record, LESSON, tmp_path, standing=standing, instructor=instructor), encoding="utf-8")
    dom = assert_inert(page, listener, tmp_path)
    text = dom.replace("&lt;", "<").replace("&gt;", ">")
    assert "<script>fetch(" in text, "the message should show, as text"
    assert ("printed: <script>" in text) == instructor, "the full message on the instructor's view only"
    assert "decided: <script>" in text, "the term's notes should show, as text"
    assert_inert(page, listener, tmp_path, policy=False)


def test_the_class_report_runs_nothing(listener: Listener, tmp_path: Path) -> None:
    hostile = _hostile_record(listener.base)
    records = [hostile, StudentRecord.from_dict({"student": "alice", "score": 10.0, "max_score": LESSON.points,
                                                 "exercises": [], "problems": [], "error": ""})]
    standings = {hostile.student: _hostile_standing(listener.base, hostile.student),
                 "nobody": _hostile_standing(listener.base, "nobody")}
    similar = [{"exercise": hostile_html(listener.base), "first": hostile.student, "second": "alice",
                "similarity": 0.9}, {"exercise": SLUG, "first": f"2024/{hostile_html(listener.base)}",
                                     "second": hostile.student, "similarity": 0.8}]
    page = tmp_path / "report.html"
    page.write_text(report_html(records, LESSON, tables.class_stats(records, LESSON), standings=standings,
                                similar=similar), encoding="utf-8")
    dom = assert_inert(page, listener, tmp_path)
    assert "Integrity flags" in dom and "Hand-in problems" in dom and "Similar answers" in dom
    assert "What to reteach" in dom and "Roster" in dom
    assert_inert(page, listener, tmp_path, policy=False)


# ------------------------------------------------------------------ nbgrader's feedback, through its template


def _hostile_notebook(base: str, answer_cell: nbformat.NotebookNode | None = None) -> nbformat.NotebookNode:
    """Hostile cells of every kind, and a code cell whose outputs are hostile in every mimetype; added after
    `answer_cell` (or into a new notebook)."""
    payload = hostile_html(base)
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" onload="fetch(\'{base}/fired-svg-output\')"><script>x</script></svg>'
    outputs = [
        nbformat.v4.new_output("display_data", data={"text/html": payload}),
        nbformat.v4.new_output("display_data", data={"text/html": payload, "text/plain": payload}),
        nbformat.v4.new_output("execute_result", data={"application/javascript": f"fetch('{base}/fired-js-output')"},
                               execution_count=1),
        nbformat.v4.new_output("display_data", data={"image/svg+xml": svg}),
        nbformat.v4.new_output("display_data", data={"text/markdown": hostile_markdown(base)}),
        nbformat.v4.new_output("display_data", data={"text/latex": payload}),
        nbformat.v4.new_output("display_data", data={"application/vnd.jupyter.widget-view+json": {"model_id": payload}}),
        nbformat.v4.new_output("display_data", data={"image/png": f'x" onerror="fetch(\'{base}/fired-png-data\')'}),
        nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="},
                               metadata={"image/png": {"width": f"1 onerror=fetch('{base}/fired-png-width')",
                                                       "alt": payload}}),
        nbformat.v4.new_output("stream", name="stdout", text=payload),
        nbformat.v4.new_output("stream", name="stderr", text=payload),
        nbformat.v4.new_output("error", ename=payload, evalue=payload, traceback=[payload]),
    ]
    markdown = nbformat.v4.new_markdown_cell(hostile_markdown(base) + "\n![attached](attachment:evil.svg)\n")
    markdown.attachments = {"evil.svg": {"image/svg+xml": svg}}
    cells = [markdown,
             nbformat.v4.new_raw_cell(payload, metadata={"raw_mimetype": "text/html"}),
             nbformat.v4.new_code_cell(f"# {payload}\nx = '''{payload}'''", outputs=outputs, execution_count=1)]
    notebook = nbformat.v4.new_notebook()
    notebook.cells = ([answer_cell] if answer_cell is not None else []) + cells
    return notebook


def test_the_feedback_template_shows_every_kind_of_output_inert(listener: Listener, tmp_path: Path) -> None:
    """The template as nbgrader's generate_feedback configures it (the build's nbgrader_config.py), rendered
    by nbconvert directly: every cell kind and output mimetype, hostile."""
    nbgrader = pytest.importorskip("nbgrader")
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    from graders.frontends.nbgrader import config as course_config_file

    formgrader = Path(nbgrader.__file__).parent / "server_extensions" / "formgrader"
    settings = Config()
    settings.HTMLExporter.template_name = course_config_file.TEMPLATE_NAME
    settings.HTMLExporter.template_file = "graders.html.j2"
    settings.HTMLExporter.extra_template_basedirs = [str(course_config_file.TEMPLATES), str(formgrader / "templates")]
    settings.HTMLExporter.extra_template_paths = [str(formgrader / "static" / "node_modules" / "bootstrap" / "dist" / "css")]
    settings.HTMLExporter.filters = course_config_file.FEEDBACK_FILTERS
    resources = {"nbgrader": {"notebook": "lesson01", "score": 1, "max_score": 10, "late_penalty": 0}}
    html, _ = HTMLExporter(config=settings).from_notebook_node(_hostile_notebook(listener.base), resources=resources)
    page = tmp_path / "template.html"
    page.write_text(html, encoding="utf-8")
    dom = assert_inert(page, listener, tmp_path)
    assert "<script" not in dom, "the page should hold no script element at all (MathJax's loader is dropped)"
    assert "not shown in feedback" in dom and "iVBORw0KGgo=" in dom  # a note for HTML/JS/SVG; a picture shown
    assert_inert(page, listener, tmp_path, policy=False)


def test_nbgrader_generate_feedback_page_runs_nothing(listener: Listener, tmp_path: Path) -> None:
    """Real nbgrader: a student hands in hostile markdown, raw and code cells and an answer that prints hostile
    text (the test cell's feedback quotes it); autograde, generate_feedback, open the page. The hostile outputs
    handed in on their cells are cleared when autograde executes the notebook (the test above covers
    every kind of output, should an instructor's own setup keep them)."""
    pytest.importorskip("nbgrader.api")
    from graders.frontends.nbgrader import build

    course = tmp_path / "course"
    build.main(course, course_id="browser", exercises=[SLUG], prove=False)
    _nbgrader(course, "generate_assignment", "lesson01")
    notebook = nbformat.read(course / "release" / "lesson01" / "lesson01.ipynb", as_version=4)
    answer = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == f"answer-{SLUG}")
    # The print is in the function whose wrong answer the first failing check explains in full (later checks of
    # the same cause say "same cause as above" without repeating what was printed).
    printing = submission(SLUG, "sign_error") + (
        f"\n\n_wrong = analytic_derivative\n\ndef analytic_derivative(x):\n"
        f"    print({hostile_html(listener.base)!r})\n    return _wrong(x)\n")
    answer.source = f"%%answer {SLUG}\n{printing}"
    hostile = _hostile_notebook(listener.base)
    answer.outputs = hostile.cells[-1].outputs
    index = notebook.cells.index(answer)
    notebook.cells[index + 1:index + 1] = hostile.cells
    notebook.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {"state": hostile_html(listener.base)}}
    submitted = course / "submitted" / "mallory" / "lesson01"
    submitted.mkdir(parents=True)
    nbformat.write(notebook, submitted / "lesson01.ipynb")
    _nbgrader(course, "autograde", "lesson01")
    _nbgrader(course, "generate_feedback", "lesson01")
    page = course / "feedback" / "mallory" / "lesson01" / "lesson01.html"
    dom = assert_inert(page, listener, tmp_path)
    text = dom.replace("&lt;", "<").replace("&gt;", ">")
    assert f"{SLUG}:" in text and "printed:" in text and "<script>fetch(" in text, (
        "the test cell's feedback, quoting what the answer printed, should show as text")
    assert "My answer" in dom and "/fired-breakout" in dom, "the student's markdown, raw and code cells should show"
    assert "<script" not in dom
    assert_inert(page, listener, tmp_path, policy=False)


def _nbgrader(course: Path, *args: str) -> None:
    run = subprocess.run(["nbgrader", *args], cwd=course, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, f"nbgrader {' '.join(args)}:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
