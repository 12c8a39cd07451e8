"""Shared fixtures: grade a submission through a real pytest run of the plugin, with real
worker processes, and read back the JSON result model."""

from __future__ import annotations

import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Generator

import pytest

import mistake_catalogue as catalogue
from committed_stubs import stubs_as_committed
import course_config
from graders.engine import kept_values
from graders.engine.results import SubmissionResult

pytest_plugins = ["pytester"]

# The project's own grading runs compute everything afresh, as they did before students' runs kept their
# expected values (graders/engine/kept_values.py); tests/engine/test_kept_values.py turns keeping on where it is tested.
os.environ[kept_values.FOLDER_VARIABLE] = kept_values.OFF
# The batch's similarity waits a few seconds for its comparison (graders/frontends/grade/outputs/similarity_run.py): on a
# machine as loaded as a parallel test run makes it, a class's pairs could be cut short, and the tests that read
# them would depend on the load. The tests of that budget give theirs explicitly.
os.environ["GRADERS_SIMILARITY_SECONDS"] = "120"

ROOT = course_config.ROOT


# The stubs the tests take as untouched: exercises/ as committed. Tests that grade the stubs, read them or run
# `pytest exercises/` as a student would use STUBS, never ROOT / "exercises".
STUBS, STUBS_DIFFER_IN = stubs_as_committed(ROOT)


def pytest_sessionstart(session: pytest.Session) -> None:
    """One line, at any verbosity, where the working copy's exercises/ is not what the tests grade."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if STUBS_DIFFER_IN and reporter is not None and not os.environ.get("PYTEST_XDIST_WORKER"):
        reporter.write_line(f"exercises/ differs from its last commit ({', '.join(STUBS_DIFFER_IN)}): the tests "
                            f"grade the committed stubs, copied to {STUBS}; your working copy is left as it is")


# pytest-xdist hands its workers whole files, in the order collected (pytest_configure below keeps that order): the
# longest go first, so that the last file a worker takes is a short one and the others are not left idle for minutes
# (their times under -n auto on two cores, measured: 221, 216, 116, 112, 96, 91, 91, 63, 56, 46, 43, 38, 32 and
# 32 s). Within a file, and among the others, nothing moves.
LONGEST_FILES = ("frontends/test_batch.py", "test_mistakes.py", "frontends/test_nbgrader.py",
                 "frontends/test_nbgrader_attacks.py", "frontends/test_nbgrader_handins.py",
                 "frontends/test_handout.py", "frontends/test_dask.py", "sandbox/test_clean_workers.py",
                 "frontends/test_browser.py", "frontends/test_gradescope.py", "sandbox/test_ahead.py",
                 "sandbox/test_cgroups.py", "sandbox/test_hostile.py", "frontends/test_unnamed_groups.py")


def pytest_configure(config: pytest.Config) -> None:
    # pytest-xdist (3.x) reorders files by their number of tests unless told not to: test_batch (18 tests) and
    # test_dask (4) would start last, after hundreds of one-line tests, and end the suite alone.
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


@pytest.hookimpl(wrapper=True, optionalhook=True)  # optional: a run without pytest-xdist has no such hook
def pytest_xdist_auto_num_workers(config: pytest.Config) -> Generator[None, int, int]:
    """`-n auto` (README) starts one worker more than there are cores: about a tenth of the suite's time is spent
    waiting (on students' time limits, on nbgrader's and Dask's processes starting), and with one worker per core
    that time was lost, the cores 90% busy (/proc/stat, measured); with one more worker they were 97% busy and the
    suite took 10:44 instead of 11:29. PYTEST_XDIST_AUTO_NUM_WORKERS, when set, is taken as it is."""
    cores = yield
    return cores if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") else cores + 1


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    rank = {name: place for place, name in enumerate(LONGEST_FILES)}

    def place(item: pytest.Item) -> int:
        try:
            return rank.get(Path(item.path).resolve().relative_to(here).as_posix(), len(rank))
        except ValueError:  # a file outside tests/ (pytester's own runs)
            return len(rank)

    items.sort(key=place)


@pytest.fixture(scope="session", autouse=True)
def temporary_folder_of_this_worker(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Under pytest-xdist (README: the tests run in parallel), each worker's temporary folder is its own: tests
    that look at the whole of it (scratch folders a grading run must leave none of) would otherwise see the other
    workers' runs. Its tmp_path folders stay inside it, where feedback names a file by its name alone."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        os.environ["TMPDIR"] = str(tmp_path_factory.getbasetemp())
        tempfile.tempdir = None  # gettempdir() looks again, and finds TMPDIR


@pytest.fixture(scope="session", autouse=True)
def modules_an_in_process_grading_imports() -> None:
    """Import, once per test process, what a grading run imports only when it needs it: each exercise's room and
    the engine modules behind its feedback, and matplotlib for a loss-curve picture. pytester (the `grade` fixture)
    drops every module an in-process run imported when the test ends, so without this each of test_mistakes.py's
    490 gradings imported about ten of them again, and a failed learning_rate check matplotlib again (about a
    second each). Modules imported here are taken as the test process's own and kept. The grading workers are
    processes of their own (sandbox/zygote.py) and get nothing from this."""
    import importlib
    import pkgutil

    import graders.engine
    import graders.lesson01

    for package in (graders.engine, graders.lesson01):
        for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            importlib.import_module(module.name)
    importlib.import_module("graders.kit")
    importlib.import_module("matplotlib.figure")
    importlib.import_module("matplotlib.backends.backend_agg")


_BATCH_KEPT: list[Path] = []  # the test session's folder for the batch's kept reference values


@pytest.fixture(scope="session", autouse=True)
def batch_folder_of_this_session(tmp_path_factory: pytest.TempPathFactory) -> None:
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base  # pytest-xdist's workers share one
    (shared / "batch-kept").mkdir(exist_ok=True)
    _BATCH_KEPT.append(shared / "batch-kept")


def batch_environment() -> dict[str, str]:
    """The environment of a `python -m graders grade` run that may start from the reference's values an earlier
    class kept (grade/run/main.py keeps them for a class graded into a new folder, as an instructor's second class
    starts): the test session grades the reference once, in its first such run, and its later classes start at
    once (about 1.8 CPU-s less each). The values are keyed by the course's digest, so a changed check or
    reference is graded afresh. A test about grading the reference itself keeps GRADERS_CACHE_DIR=off, and so do
    the looting tests (tests/sandbox/test_clean_workers.py), whose grading processes must have held the reference."""
    return keeping_in(_BATCH_KEPT[0])


def keeping_in(folder: Path) -> dict[str, str]:
    """The environment of a grading process that keeps what it computes in `folder` (kept_values.py), where this
    test process keeps nothing."""
    return {**os.environ, kept_values.FOLDER_VARIABLE: str(folder)}


@dataclass
class Graded:
    """The outcome of one grading run: its exit code, printed output and JSON result."""

    exit_code: int
    output: str
    result: dict

    def exercise(self, slug: str) -> dict:
        return next(e for e in self.result["exercises"] if e["slug"] == slug)

    def checks(self, slug: str) -> dict[str, dict]:
        return {c["id"]: c for c in self.exercise(slug)["checks"]}

    def failed(self, slug: str) -> set[str]:
        return {i for i, c in self.checks(slug).items() if not c["passed"]}

    @property
    def model(self) -> SubmissionResult:
        """The result typed, as the front ends read it."""
        return SubmissionResult.from_dict(self.result)

    def explained(self, slug: str, check_id: str) -> str:
        """The whole message behind a check's failure: its own, or that of the earlier check it points to with
        "same cause as above" (the result's `same_cause_as`)."""
        checks = self.checks(slug)
        first = checks[check_id].get("same_cause_as") or check_id
        return checks[first]["message"]


@pytest.fixture(scope="session")
def kept_values_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the grading runs of `keeping` tests keep the reference's expected values: one folder per
    test process, so the first run of each exercise computes them and the later ones read them back."""
    return tmp_path_factory.mktemp("kept-values")


@pytest.fixture
def keeping(kept_values_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Grading runs in this test keep expected values between runs, as a student's usual runs do."""
    monkeypatch.setenv(kept_values.FOLDER_VARIABLE, str(kept_values_folder))


@pytest.fixture
def grade(pytester: pytest.Pytester, tmp_path: Path) -> Callable[..., Graded]:
    """grade({slug: source text or Path}, *extra pytest args) -> Graded (run in-process);
    or grade(folder, *args, only=[slugs]) to grade a folder laid out like exercises/."""
    counter = iter(range(1000))

    def run(files: dict[str, str | Path] | Path, *args: str, only: list[str] | None = None) -> Graded:
        targets = [str(STUBS / "lesson01" / f"{slug}.py") for slug in only] if only else [
            str(STUBS)]
        if isinstance(files, Path):
            folder = files
        else:
            # Collect only the exercises submitted: faster, and independent of the others.
            targets = [str(STUBS / "lesson01" / f"{slug}.py") for slug in files]
            folder = tmp_path / f"submission{next(counter)}"
            (folder / "lesson01").mkdir(parents=True)
            for slug, source in files.items():
                text = source.read_text() if isinstance(source, Path) else source
                (folder / "lesson01" / f"{slug}.py").write_text(text)
        out = tmp_path / f"result{next(counter)}.json"
        selected = [a for a in args]
        outcome = pytester.runpytest_inprocess(*targets, "--submission", str(folder),
                                               "--json", str(out), "-p", "no:cacheprovider", *selected)
        text = outcome.stdout.str()
        result = json.loads(out.read_text()) if out.exists() else {}
        # Every run's JSON reads back as the typed model, field for field (results.py's round trip).
        assert not result or SubmissionResult.read(out).to_dict() == result
        return Graded(outcome.ret, text, result)

    return run


@dataclass(frozen=True)
class MistakeSubmission:
    """A wrong solution from the catalogue (tests/lesson01/<slug>/mistakes/<name>.change, a change to the
    reference), with what it must cost and be called."""

    slug: str
    change: Path  # its change file (not Python: text() is the submission)
    mistake: str  # the name the grader must give it
    fails: frozenset[str]  # exactly the checks it must fail
    named: frozenset[str]  # the failed checks whose message must name the mistake
    replayed_fails: frozenset[str] | None = None  # the public checks it fails against recorded values, if not
    # `fails` (public checks also run on fresh inputs with the live reference: a hard-coded answer fails there only)

    @property
    def name(self) -> str:
        return self.change.stem

    def text(self) -> str:
        """The submission's source: the change applied to today's reference."""
        return catalogue.read(self.change).text()


def mistake_submissions() -> list[MistakeSubmission]:
    found = []
    for change in catalogue.changes():
        header = dict(re.findall(r"^# (mistake|fails|named|replayed fails):[ \t]*(.*)$", change.header, re.MULTILINE))
        if "mistake" not in header:
            continue
        fails = frozenset(c.strip() for c in header.get("fails", "").split(",") if c.strip())
        named = frozenset(c.strip() for c in header["named"].split(",")) if "named" in header else fails
        replayed = (frozenset(c.strip() for c in header["replayed fails"].split(",") if c.strip())
                    if "replayed fails" in header else None)
        found.append(MistakeSubmission(change.slug, change.path, header["mistake"].strip(), fails, named, replayed))
    return found
