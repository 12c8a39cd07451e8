"""Generated inputs come from hypothesis with a fixed seed: the same cases wherever they are
drawn (the helper process, the grader, a fresh interpreter, a CI machine), and a grading run
draws them in the helper, never in the grader. Here the helper is tested as it works where the
course ships no cases up to date (tests/engine/test_shipped_cases.py tests those)."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT
from graders.engine import drawing, shipped_cases
from graders.engine.case_recipes import recipes
from graders.frontends.pytest_plugin import exercises_reached

LESSON = "lesson01"
DRAWN = [("shape_bugs", "generated_pairs"), ("shape_bugs", "fresh_pairs"),
         ("micrograd", "generated_expressions"), ("micrograd", "chain")]


# What the seeds give with the pinned hypothesis: a new hypothesis, Python or strategy that
# changes a case fails here, instead of grading other cases without a word.
DIGESTS = {
    ("shape_bugs", "generated_pairs"): "199807d2562f53e3",
    ("shape_bugs", "fresh_pairs"): "4bfab8c3b1b682e8",
    ("micrograd", "generated_expressions"): "d6a0c31da1c34ded",
    ("micrograd", "chain"): "3702d984c7b344e9",
}


@pytest.fixture(autouse=True)
def nothing_shipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the course shipped no cases: every one is drawn, by the helper (forked from here) or in place."""
    monkeypatch.setattr(shipped_cases, "shipped", lambda lesson: {})


def _draw_here(slug: str, name: str):
    return recipes(LESSON)[slug][name]()


def _draw_in_fresh_python(slug: str, name: str, **env: str):
    code = (f"from graders.engine.case_recipes import recipes; "
            f"print(repr(recipes({LESSON!r})[{slug!r}][{name!r}]()))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                          env={**os.environ, **env})
    return ast.literal_eval(done.stdout)


def test_every_recipe_of_lesson_1_is_listed_here() -> None:
    assert sorted((slug, name) for slug, names in recipes(LESSON).items() for name in names) == sorted(DRAWN)
    assert sorted(DIGESTS) == sorted(DRAWN)


@pytest.mark.parametrize(("slug", "name"), DRAWN)
def test_the_seeds_still_give_the_cases_they_gave_when_the_checks_were_written(slug: str, name: str) -> None:
    digest = hashlib.sha256(repr(_draw_here(slug, name)).encode()).hexdigest()[:16]
    assert digest == DIGESTS[slug, name], (
        "the drawn cases changed (another hypothesis version, or an edited strategy): check that the "
        "catalogued mistakes are still caught (tests/test_mistakes.py), then update DIGESTS")


@pytest.mark.parametrize(("slug", "name"), DRAWN)
def test_a_fresh_interpreter_on_a_ci_machine_draws_the_same_cases_as_this_process(slug: str, name: str) -> None:
    # This process has loaded every checks module and more; CI=true makes hypothesis load its
    # "ci" settings profile. Neither may change what the seed gives.
    assert _draw_in_fresh_python(slug, name, CI="true") == _draw_here(slug, name)


def test_constants_of_local_modules_do_not_leak_into_the_cases(tmp_path: Path, monkeypatch) -> None:
    from hypothesis import strategies as st

    before = drawing.distinct(st.integers(-1000, 1000), 200, seed=1)
    # Hypothesis mixes integers of 100 and more that it finds in the local modules of
    # sys.modules into its draws (and caches them under .hypothesis/ in the current folder).
    (tmp_path / "many_constants.py").write_text(f"NUMBERS = {list(range(100, 1001, 3))!r}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    import many_constants  # noqa: F401 - loaded for hypothesis to find

    assert drawing.distinct(st.integers(-1000, 1000), 200, seed=1) == before
    assert not (tmp_path / ".hypothesis").exists()


def test_the_hypothesis_internals_the_seed_guard_replaces_still_exist() -> None:
    # drawing._only_this_seed swaps these; a new hypothesis that moved them must fail here.
    from hypothesis.internal.conjecture import providers

    assert callable(providers._get_local_constants)
    assert hasattr(providers.CONSTANTS_CACHE, "cache")


def test_recipes_give_as_many_distinct_cases_as_configured() -> None:
    from graders.lesson01 import cases

    for slug, name, count in (("shape_bugs", "generated_pairs", cases.PUBLIC_PAIRS[0]),
                              ("shape_bugs", "fresh_pairs", cases.HIDDEN_PAIRS[0]),
                              ("micrograd", "generated_expressions",
                               int(cases.MICROGRAD.tolerance("random_graph_count")))):
        drawn = _draw_here(slug, name)
        assert len(drawn) == count and len({repr(case) for case in drawn}) == count, (slug, name)


def test_the_helper_sends_exactly_what_drawing_here_gives(monkeypatch) -> None:
    expected = {(slug, name): _draw_here(slug, name) for slug, name in DRAWN}
    grader = os.getpid()
    for slug, name in DRAWN:  # from now on, drawing here fails: every case must come from the helper
        draw = recipes(LESSON)[slug][name]
        monkeypatch.setitem(recipes(LESSON)[slug], name,
                            lambda draw=draw: draw() if os.getpid() != grader else pytest.fail("drawn here"))
    drawer = drawing.Drawer()
    drawer.start([(LESSON, "shape_bugs"), (LESSON, "micrograd")])
    try:
        helper = drawer.pid
        for slug, name in DRAWN:
            assert drawer.get(LESSON, slug, name) == expected[slug, name]
        assert drawer.get(LESSON, "shape_bugs", "fresh_pairs") == expected["shape_bugs", "fresh_pairs"], \
            "a case is kept for the next check that grades it"
    finally:
        drawer.close()
    with pytest.raises(ProcessLookupError):
        os.kill(helper, 0)


def test_a_helper_that_has_sent_everything_is_reaped_at_once() -> None:
    drawer = drawing.Drawer()
    drawer.start([(LESSON, "shape_bugs")])
    helper = drawer.pid
    try:
        drawer.get(LESSON, "shape_bugs", "generated_pairs")
        os.waitid(os.P_PID, helper, os.WEXITED | os.WNOWAIT)  # wait until it has exited, without reaping
        drawer.get(LESSON, "shape_bugs", "fresh_pairs")
        assert drawer.pid is None and drawer.sock is None, "no zombie left for a long-lived grading process"
        with pytest.raises(ChildProcessError):
            os.waitpid(helper, os.WNOHANG)
    finally:
        drawer.close()


def test_a_line_the_helper_did_not_finish_is_not_used(monkeypatch) -> None:
    drawer = drawing.Drawer()
    ours, theirs = __import__("socket").socketpair()
    drawer.sock = ours
    theirs.sendall(f"{LESSON}/shape_bugs.generated_pairs\t[((1,), (2,)), ((3".encode())
    theirs.close()  # the helper died in the middle of the line
    try:
        assert drawer.get(LESSON, "shape_bugs", "generated_pairs") == _draw_here("shape_bugs", "generated_pairs")
    finally:
        drawer.close()


def test_a_case_the_helper_could_not_draw_is_drawn_in_place(monkeypatch) -> None:
    grader = os.getpid()

    def only_here() -> list:
        if os.getpid() != grader:
            raise RuntimeError("the helper fails on this one")
        return [1, 2, 3]

    monkeypatch.setitem(recipes(LESSON)["shape_bugs"], "generated_pairs", only_here)
    drawer = drawing.Drawer()
    drawer.start([(LESSON, "shape_bugs")])
    try:
        assert drawer.get(LESSON, "shape_bugs", "generated_pairs") == [1, 2, 3]
        assert drawer.get(LESSON, "shape_bugs", "fresh_pairs") == _draw_here("shape_bugs", "fresh_pairs")
    finally:
        drawer.close()


def test_closing_stops_a_helper_that_is_still_drawing() -> None:
    drawer = drawing.Drawer()
    drawer.start([(LESSON, "shape_bugs"), (LESSON, "micrograd")])
    helper = drawer.pid
    drawer.close()
    with pytest.raises(ProcessLookupError):
        os.kill(helper, 0)
    assert drawer.pid is None and drawer.sock is None


@pytest.mark.parametrize(("args", "expected"), [
    (["exercises"], ["shape_bugs", "micrograd"]),
    (["."], ["shape_bugs", "micrograd"]),
    (["exercises/lesson01"], ["shape_bugs", "micrograd"]),
    (["exercises/lesson01/micrograd.py::test_relu"], ["micrograd"]),
    (["exercises/lesson01/views.py"], []),
    (["tests"], []),
    (["reference/lesson01/shape_bugs.py"], []),  # not under exercises/: pytest grades nothing there
])
def test_the_plugin_foresees_which_exercises_a_run_reaches(args: list[str], expected: list[str]) -> None:
    reached = [slug for _, slug in exercises_reached(args, ROOT)]
    assert [slug for slug in reached if slug in ("shape_bugs", "micrograd")] == expected
    if args[0] in ("exercises", "."):
        assert len(reached) == sum(len(lesson.exercises) for lesson in __import__("course_config").LESSONS)


def test_a_grading_run_never_imports_hypothesis_in_the_grader(tmp_path: Path) -> None:
    # A run of its own: the cases the course ships, up to date, are read, and the helper has nothing to draw.
    (tmp_path / "report_modules.py").write_text(
        "import json, sys\n"
        "def pytest_unconfigure(config):\n"
        f"    open({str(tmp_path / 'modules.json')!r}, 'w').write(json.dumps(sorted(sys.modules)))\n")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "exercises/lesson01/shape_bugs.py", "exercises/lesson01/micrograd.py",
         "--submission", "reference", "-q", "-p", "no:cacheprovider", "-p", "report_modules"],
        cwd=ROOT, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert done.returncode == 0, done.stdout + done.stderr
    modules = json.loads((tmp_path / "modules.json").read_text())
    assert "graders.lesson01.shape_bugs.checks" in modules
    assert not any(m == "hypothesis" or m.startswith("hypothesis.") for m in modules)


def test_with_draw_ahead_the_first_session_draws_for_the_later_ones_of_the_process(tmp_path: Path) -> None:
    # As the notebooks' grading server does: one pytest.main per exercise, in one process.
    script = tmp_path / "two_sessions.py"
    script.write_text(
        "import json, sys, pytest\n"
        "from graders.engine import drawing\n"
        "common = ['--submission', 'reference', '-q', '-p', 'no:cacheprovider', '--draw-ahead']\n"
        "first = pytest.main(['exercises/lesson01/views.py', *common])\n"
        "helper = drawing.DRAWER.pid\n"
        "second = pytest.main(['exercises/lesson01/shape_bugs.py', *common])\n"
        "print(json.dumps({'exits': [int(first), int(second)], 'helper': helper,\n"
        "                  'received': sorted(drawing.DRAWER.received),\n"
        "                  'hypothesis': 'hypothesis' in sys.modules}))\n")
    done = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})  # this checkout, not an installed copy
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["exits"] == [0, 0], done.stdout + done.stderr
    assert report["helper"] is not None, "the first session, which grades no generated input, starts the helper"
    assert f"{LESSON}/shape_bugs.fresh_pairs" in report["received"]
    assert not report["hypothesis"], "every case came from the helper"
