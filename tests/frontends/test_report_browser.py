"""The class report as a browser shows it: built from stored records (through their JSON) with the term's
standings, concepts, causes and a similar pair, opened in headless chromium; every number the page gives
(class size, mean, each concept's students, each exercise's mean, not started and timed out, each roster
row's final) read back from the DOM by its data-key and compared with what the records say.

The class: alice and bob made mistakes of several concepts (bob twice in one check's concept: counted once),
carol had not started `views`, timed out in `micrograd` and spent her allowance in `learning_rate`, dave's
hand-in could not be graded, "eve smith" made a mistake no concept is named for; frank and grace are on the
roster and handed nothing in, grace excused. Chromium: Debian's `chromium` package; without it these tests skip.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
from datetime import datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import course_config
from graders.frontends.grade import store
from graders.frontends.grade.outputs import tables
from graders.frontends.grade.outputs.feedback_html import feedback_html
from graders.frontends.grade.outputs.report import report_html
from graders.frontends.grade.term.standing import Person, Standing

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install chromium)")

LESSON = course_config.LESSON_01
SLUGS = ("views", "shape_bugs", "micrograd", "learning_rate")
TIMEOUT = {"cause": "timeout of backward", "message": "backward did not return within 2 s"}


def _exercise(slug: str, failed: dict[str, dict[str, Any]] | None = None, *, not_started: bool = False) -> dict:
    """A stored exercise result: every check passed but those in `failed` (check id -> the failure's fields),
    or, `not_started`, every check failed as not implemented."""
    exercise = LESSON.exercise(slug)
    failed = {c.id: {"not_implemented": True} for c in exercise.checks} if not_started else failed or {}
    checks = []
    for check in exercise.checks:
        failure = failed.get(check.id)
        message = "" if failure is None else f"{check.id} failed: the full message, with the hidden inputs"
        checks.append({"id": check.id, "points": check.points, "score": check.points if failure is None else 0.0,
                       "passed": failure is None, "message": message, "hidden": check.hidden, "mistake": None,
                       "not_implemented": False, "files": [],
                       "shown": "Hidden check failed." if check.hidden and failure is not None else message,
                       **(failure or {})})
    lost = [c for c in checks if not c["passed"]]
    return {"slug": slug, "title": exercise.title, "score": sum(c["score"] for c in checks),
            "max_score": exercise.points, "not_implemented": bool(lost) and all(c["not_implemented"] for c in lost),
            "checks": checks, "seconds": 0.2, "integrity": []}


def _mistake(name: str, concept: str | None = None) -> dict[str, Any]:
    return {"mistake": name, **({"concept": concept} if concept else {})}


def _record(student: str, exercises: list[dict], **fields: Any) -> dict[str, Any]:
    return {"student": student, "key": "k", "origin": f"submissions/{student}",
            "score": sum(e["score"] for e in exercises),
            "max_score": LESSON.points, "exercises": exercises, "problems": [], "error": "", "integrity": [], **fields}


def _class() -> list[dict[str, Any]]:
    mean_not_sum = _mistake("sum_instead_of_mean", "training_loop")
    copies = _mistake("copies_instead_of_view", "views")
    from_the_left = _mistake("aligns_from_the_left", "broadcasting")
    return [
        _record("alice", [_exercise("views"),
                          _exercise("shape_bugs", {"mse_loss_matches_torch": mean_not_sum,
                                                   "mse_loss_fresh_inputs": mean_not_sum}),
                          _exercise("micrograd"), _exercise("learning_rate")]),
        _record("bob", [_exercise("views", {"as_grid_is_a_view": copies, "flatten_contiguous_is_a_view": copies}),
                        _exercise("shape_bugs", {"broadcast_shape_lesson_cases": from_the_left,
                                                 "mse_loss_matches_torch": mean_not_sum}),
                        _exercise("micrograd", {"reused_leaves": _mistake("assigns_grad", "micrograd")}),
                        _exercise("learning_rate")]),
        _record("carol", [_exercise("views", not_started=True),
                          _exercise("shape_bugs", {"silently_broadcasts_lesson_cases": from_the_left}),
                          _exercise("micrograd", {"value_backward_on_a_deep_chain": TIMEOUT,
                                                  "value_backward_on_random_graphs": TIMEOUT}),
                          _exercise("learning_rate", {"lr_0_01_is_slow": {"cause": "allowance spent"}})]),
        _record("dave", [], error="SyntaxError: invalid syntax (views.py, line 3)",
                integrity=["views: views.py line 2: sys._getframe: reaches the grader's frames"]),
        _record("eve smith", [_exercise("views", {"flatten_non_contiguous": _mistake("view_of_a_transpose")}),
                              _exercise("shape_bugs"), _exercise("micrograd", not_started=True),
                              _exercise("learning_rate", {"lesson_run_at_lr_0_1": {}})]),
    ]


def _standings(records: list[dict[str, Any]]) -> dict[str, Standing]:
    """The term's standings: grace and frank are on the roster and handed nothing in."""
    raw = {r["student"]: float(r["score"]) for r in records}
    points = LESSON.points

    def standing(student: str, **fields: Any) -> Standing:
        defaults = {"person": Person(student, name=student.title(), section="A"), "final": raw.get(student, 0.0)}
        return Standing(student=student, handed_in=student in raw, raw=raw.get(student, 0.0), max_score=points,
                        **{**defaults, **fields})

    return {s.student: s for s in [
        standing("grace", excused=True, notes=["Excused by the instructor: no grade counts."]),
        standing("frank", notes=["Nothing handed in."]),
        standing("alice"),
        standing("bob", overrides={"total": 40.0}, final=40.0, notes=["The total was set to 40 points by a decision."]),
        standing("carol", late_days=2, penalty=0.2, final=raw["carol"] * 0.8,
                 submitted_at=datetime(2025, 3, 3, 9, 30), submitted_how="Canvas submission time",
                 due=datetime(2025, 3, 1, 23, 59), notes=["Handed in 2 days late: 20% of the score taken."]),
        standing("dave"),
        standing("eve smith", person=Person("eve smith", name="Eve Smith", section="B")),
    ]}


SIMILAR = [{"exercise": "views", "first": "alice", "second": "eve smith", "similarity": 0.93},
           {"exercise": "micrograd", "first": "2024-fall/zed", "second": "bob", "similarity": 0.81}]


# ------------------------------------------------------------------ reading the page back


class _Numbers(HTMLParser):
    """Every element with a data-key: its attributes and its text."""

    VOID = {"img", "br", "meta", "input", "hr", "link"}
    WHOSE = ("exercise", "check", "concept", "mistake", "student")

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[dict[str, str]] = []
        self._open: list[tuple[str, dict[str, str], list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.VOID:
            self._open.append((tag, {k: v or "" for k, v in attrs}, []))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            name, attrs, text = self._open.pop()
            if "data-key" in attrs:
                self.found.append({**attrs, "text": " ".join("".join(text).split())})
            if self._open:
                self._open[-1][2].extend(text)
            if name == tag:
                break

    def handle_data(self, data: str) -> None:
        if self._open:
            self._open[-1][2].append(data)

    def all(self, key: str, **whose: str) -> list[dict[str, str]]:
        """The elements of that key whose owner (data-exercise, data-check, ...) is exactly `whose`."""
        return [e for e in self.found if e["data-key"] == key
                and {n: e[f"data-{n}"] for n in self.WHOSE if f"data-{n}" in e} == whose]

    def one(self, key: str, **whose: str) -> dict[str, str]:
        found = self.all(key, **whose)
        assert len(found) == 1, f"expected one element with data-key={key!r} {whose}, found {len(found)}: {found}"
        return found[0]

    def count(self, key: str, **whose: str) -> int:
        return int(self.one(key, **whose)["text"])

    def value(self, key: str, **whose: str) -> float:
        return float(self.one(key, **whose)["data-value"])


def _opened(page: Path, tmp_path: Path) -> _Numbers:
    run = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          "--disable-background-networking", "--disable-component-update", "--disable-sync",
                          f"--user-data-dir={tmp_path / 'chromium-profile'}", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and "<html" in run.stdout, f"chromium failed:\n{run.stderr[-3000:]}"
    numbers = _Numbers()
    numbers.feed(run.stdout)
    return numbers


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """The class stored as the batch stores it, and the records read back from their JSON."""
    out = tmp_path_factory.mktemp("batch")
    for record in _class():
        store.store(out, store.StudentRecord.from_dict(record))
    return out, [json.loads(path.read_text()) for path in sorted((out / store.STUDENTS).glob("*.json"))]


@pytest.fixture(scope="module")
def report(stored: tuple[Path, list[dict[str, Any]]], tmp_path_factory: pytest.TempPathFactory) -> _Numbers:
    out, records = stored
    page = out / "report.html"
    typed = [store.StudentRecord.from_dict(r) for r in records]  # as the batch reads them
    page.write_text(report_html(typed, LESSON, tables.class_stats(typed, LESSON), standings=_standings(records),
                                similar=SIMILAR), encoding="utf-8")
    return _opened(page, tmp_path_factory.mktemp("chromium"))


# ------------------------------------------------------------------ the oracle: the records, read plainly


def _results(records: list[dict[str, Any]], slug: str) -> list[dict[str, Any]]:
    return [e for r in records for e in r["exercises"] if e["slug"] == slug]


def _timed_out(result: dict[str, Any]) -> bool:
    return any(c.get("cause", "").startswith("timeout of") or c.get("cause") == "allowance spent"
               for c in result["checks"])


def _concept_students(records: list[dict[str, Any]]) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for record in records:
        for result in record["exercises"]:
            for check in result["checks"]:
                if not check["passed"] and check.get("mistake"):
                    found.setdefault(check.get("concept") or "other", set()).add(record["student"])
    return found


# ------------------------------------------------------------------ the tests


def test_the_headline_gives_the_class_size_and_the_mean_and_median_of_the_final_scores(
        report: _Numbers, stored: tuple[Path, list[dict[str, Any]]]) -> None:
    _, records = stored
    counted = [s.final for s in _standings(records).values() if not s.excused]
    assert report.count("students") == len(records) == 5, "students who handed in"
    assert report.count("in-all") == 7 and report.count("nothing-handed-in") == 2 and report.count("excused") == 1
    assert report.count("not-graded") == sum(bool(r["error"]) for r in records) == 1
    mean = report.one("mean")
    assert mean["data-basis"] == "final", "the headline should say its scores are the final ones"
    assert float(mean["data-value"]) == pytest.approx(statistics.fmean(counted)), (mean, counted)
    assert mean["text"] == f"{statistics.fmean(counted):.1f}", mean
    assert report.value("median") == pytest.approx(statistics.median(counted))


def test_each_concept_counts_the_students_who_made_any_of_its_mistakes_once(
        report: _Numbers, stored: tuple[Path, list[dict[str, Any]]]) -> None:
    _, records = stored
    expected = _concept_students(records)
    assert {c: len(s) for c, s in expected.items()} == {"training_loop": 2, "broadcasting": 2, "views": 1,
                                                        "micrograd": 1, "other": 1}, expected
    shown = {e["data-concept"]: int(e["text"]) for e in report.found
             if e["data-key"] == "students" and "data-concept" in e and "data-mistake" not in e}
    assert shown == {c: len(s) for c, s in expected.items()}, shown
    ranked = [e["data-concept"] for e in report.found if e["data-key"] == "share"]
    assert ranked == ["broadcasting", "training_loop", "micrograd", "views", "other"], (
        f"concepts should be ranked by students (then by name), 'other' last: {ranked}")
    assert report.value("share", concept="broadcasting") == pytest.approx(2 / len(records))
    # bob made `copies_instead_of_view` in two checks: one student
    assert report.count("students", concept="views", mistake="copies_instead_of_view") == 1


def test_each_exercise_gives_its_mean_and_who_had_not_started_or_timed_out(
        report: _Numbers, stored: tuple[Path, list[dict[str, Any]]]) -> None:
    _, records = stored
    for slug in SLUGS:
        results, points = _results(records, slug), LESSON.exercise(slug).points
        mean = statistics.fmean(r["score"] for r in results) / points
        assert report.value("mean", exercise=slug) == pytest.approx(mean), slug
        assert report.count("not-started", exercise=slug) == sum(
            all(c["not_implemented"] for c in r["checks"]) for r in results), slug
        assert report.count("timed-out", exercise=slug) == sum(_timed_out(r) for r in results), slug
        assert sum(report.count(f"band-{i}", exercise=slug) for i in range(6)) == len(results), slug
    assert [report.count("not-started", exercise=s) for s in SLUGS] == [1, 0, 1, 0]
    assert [report.count("timed-out", exercise=s) for s in SLUGS] == [0, 0, 1, 1]
    # over alice, bob and eve (carol had not started): 6 + 4 + 5 of 6 checks each
    assert report.value("pass-rate", exercise="views") == pytest.approx(15 / 18)
    means = [e["data-exercise"] for e in report.found if e["data-key"] == "mean" and "data-exercise" in e]
    assert means[:4] == ["views", "micrograd", "shape_bugs", "learning_rate"], f"lowest mean first: {means}"


def test_a_check_that_timed_out_is_counted_apart_from_its_failures(report: _Numbers) -> None:
    whose = {"exercise": "micrograd", "check": "value_backward_on_a_deep_chain"}
    assert report.count("timed-out", **whose) == 1 and report.count("failed", **whose) == 0
    assert report.count("passed", **whose) == 2, "alice and bob passed; eve had not written it"
    assert report.count("not-written", **whose) == 1
    assert report.value("pass-rate", **whose) == 1.0


def test_each_roster_row_gives_the_final_score_of_everyone_by_id(
        report: _Numbers, stored: tuple[Path, list[dict[str, Any]]]) -> None:
    _, records = stored
    standings = _standings(records)
    rows = [e for e in report.found if e["data-key"] == "final" and "data-student" in e]
    assert [e["data-student"] for e in rows] == sorted(standings), "everyone, by id"
    for row in rows:
        assert float(row["data-value"]) == pytest.approx(standings[row["data-student"]].final), row
    assert report.one("final", student="grace")["text"] == "EX"
    carol = next(r for r in records if r["student"] == "carol")
    assert report.value("final", student="carol") == pytest.approx(carol["score"] * 0.8)
    assert report.value("penalty", student="carol") == 0.2


def test_similar_pairs_are_listed_most_alike_first(report: _Numbers) -> None:
    shown = [float(e["data-value"]) for e in report.all("similarity")]
    assert shown == sorted((p["similarity"] for p in SIMILAR), reverse=True), shown


def test_a_students_page_shows_the_term_and_the_instructors_view_the_whole_message(
        stored: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    out, records = stored
    carol = next(r for r in records if r["student"] == "carol")
    standing = _standings(records)["carol"]
    for instructor in (False, True):
        page = tmp_path / f"carol-{instructor}.html"
        page.write_text(feedback_html(store.StudentRecord.from_dict(carol), LESSON, out, standing=standing,
                                      instructor=instructor))
        numbers = _opened(page, tmp_path)
        assert float(numbers.one("final")["text"]) == pytest.approx(carol["score"] * 0.8)
        assert float(numbers.one("raw")["text"]) == pytest.approx(carol["score"])
        assert numbers.value("penalty") == 0.2 and numbers.one("due")["text"] == "2025-03-01 23:59"
        assert bool(numbers.all("origin")) == instructor, "only the instructor's view says where the answers came from"
