"""The similarity check (similarity.py) run beside grading, in a process of its own, within a time budget.

It depends on nothing graded and is the slowest output (about 2 s of CPU for 100 students), so the batch
starts it before grading, in a process of its own (spawned, not forked: the batch runs Dask's threads) at the
lowest CPU priority: it takes what grading leaves idle (the start-up's single-threaded imports, a lone worker's
second core, the last students' tail) and is usually done by the time the outputs are written. It never holds
them back for long: once they need it, it has BUDGET_SECONDS more, then stops where it is, and what it did not
compare is said in similarity.html and on the terminal. A process that does not stop in time is ended.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import math
import multiprocessing
import os
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from types import TracebackType
from typing import Any

import course_config
from graders.engine.stubs import NotAStubError, stub_to_release
from graders.frontends.grade.outputs.similarity import Comparison, compare, similarity_csv
from graders.frontends.grade.outputs.similarity_page import similarity_html
from graders.frontends.grade.store import write_atomically
from graders.frontends.wording import counted
from graders.sandbox import die_with_parent

BUDGET_SECONDS = 5.0  # how long the outputs wait for the comparison, at most, once they need it
# A machine too loaded (or too slow) for a whole class in BUDGET_SECONDS may be given more: the project's own tests
# set it, so that what they check of the pairs does not depend on how busy the machine is.
BUDGET_VARIABLE = "GRADERS_SIMILARITY_SECONDS"
GRACE_SECONDS = 2.0  # then for the process to stop at its next answer or pair, before it is ended
NOT_ENDED = ("nothing was compared: the comparison did not stop within {seconds:g} s of being told to "
             "(its process was ended)")
LEFT_OUT = "graders grade: similarity: {first}{more}"

_deadline: Any = None  # in the similarity process: the shared time (time.time()) at which to stop comparing


def budget_seconds() -> float:
    """BUDGET_SECONDS, or the seconds BUDGET_VARIABLE gives (a positive number; anything else is ignored)."""
    try:
        given = float(os.environ.get(BUDGET_VARIABLE, ""))
    except ValueError:
        return BUDGET_SECONDS
    return given if 0 < given < math.inf else BUDGET_SECONDS


class Similarity:
    """How alike the class's answers are, computed from the moment they are known, within `budget` seconds of
    being needed (`written`). Use it as a context manager: leaving it stops the process."""

    def __init__(self, answers: dict[str, dict[str, str]] | None, lesson: course_config.Lesson,
                 archive: list[Path] | None = None, *, budget: float | None = None) -> None:
        self.answers = answers or {}
        self.stubs, self.earlier = similarity_inputs(lesson, archive or [])
        self.budget = budget if budget is not None else budget_seconds()
        self.pool: ProcessPoolExecutor | None = None
        context = multiprocessing.get_context("spawn")
        self.deadline = context.Value("d", math.inf)  # inf while grading runs: compare at leisure
        if not self.answers:  # nothing to compare: no process to start
            self.comparison: Future = Future()
            self.comparison.set_result(Comparison())
            return
        self.pool = ProcessPoolExecutor(1, mp_context=context, initializer=_in_the_background,
                                        initargs=(self.deadline,))
        self.comparison = self.pool.submit(_compare_until_told, self.answers, self.stubs, self.earlier or None)

    def result(self) -> Comparison:
        """The comparison, waited for `budget` seconds at most (and GRACE_SECONDS for the process to stop)."""
        self.deadline.value = time.time() + self.budget
        try:
            return self.comparison.result(timeout=self.budget + GRACE_SECONDS)
        except concurrent.futures.TimeoutError:
            self._stop()
            return Comparison(not_compared=[NOT_ENDED.format(seconds=self.budget + GRACE_SECONDS)])
        except BrokenProcessPool:  # its process died (killed, out of memory): computed here instead, as bounded
            until = time.time() + self.budget
            return compare(self.answers, self.stubs, archive=self.earlier or None,
                           out_of_time=lambda: time.time() > until)

    def __enter__(self) -> "Similarity":
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.pool is None:
            return
        if not self.comparison.done():  # nobody will read the pairs: the process is stopped, not waited for
            self._stop()
        self.pool.shutdown(wait=True, cancel_futures=True)

    def _stop(self) -> None:
        # ProcessPoolExecutor has no public way to stop a running call before Python 3.14 (terminate_workers)
        for process in list(getattr(self.pool, "_processes", {}).values()):
            with contextlib.suppress(OSError, ValueError):
                process.terminate()


def _in_the_background(deadline: Any) -> None:
    """The similarity process's set-up: the lowest CPU priority, the OOM killer's ordinary choice (not the batch's
    protection, which it inherits), an end with the batch however the batch ends, and the time to stop at."""
    global _deadline
    _deadline = deadline
    os.nice(19)
    with contextlib.suppress(OSError, AttributeError):  # Linux: run only where a core would otherwise be idle
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as score:
        score.write("0")
    die_with_parent()


def _compare_until_told(answers: dict[str, dict[str, str]], stubs: dict[str, str],
                        archive: dict[str, dict[str, str]] | None) -> Comparison:
    return compare(answers, stubs, archive=archive, out_of_time=lambda: time.time() > _deadline.value)


def similarity_written(out: Path, similarity: Similarity) -> list[Any]:
    """The pairs of answers alike enough to review, once computed, written as similarity.csv and .html."""
    found = similarity.result()
    write_atomically(out / "similarity.csv", similarity_csv(found.pairs))
    write_atomically(out / "similarity.html", similarity_html(found.pairs, similarity.answers,
                                                              similarity.earlier or None, found.not_compared))
    if found.not_compared:
        more = len(found.not_compared) - 1
        print(LEFT_OUT.format(first=found.not_compared[0], more=f" ({counted(more, 'more line')} like it in "
                                                                f"similarity.html)" if more else ""), flush=True)
    return found.pairs


def similarity_inputs(lesson: course_config.Lesson, archive: list[Path]) -> tuple[dict[str, str], dict[str, Any]]:
    """What answers are compared against: each exercise's stub as released (the committed stub where the working
    copy holds a solution), subtracted from every answer, and earlier terms' answers."""
    stubs = {}
    for exercise in lesson.exercises:
        try:
            stubs[exercise.slug], _ = stub_to_release(course_config.ROOT,
                                                      Path("exercises") / lesson.folder / f"{exercise.slug}.py")
        except NotAStubError:
            stubs[exercise.slug] = ""  # no stub to subtract: every line of an answer counts
    return stubs, archived_answers(archive)


def archived_answers(folders: list[Path]) -> dict[str, dict[str, str]]:
    """Earlier terms' answers (their --out folders' answers/), named "<folder>/<student>"."""
    found: dict[str, dict[str, str]] = {}
    for folder in folders:
        if not (folder / "answers").is_dir():  # checked before grading (class_term.load_term); gone since
            continue
        for student in sorted(p for p in (folder / "answers").iterdir() if p.is_dir()):
            found[f"{folder.name}/{student.name}"] = {f.stem: f.read_text(encoding="utf-8", errors="replace")
                                                      for f in sorted(student.glob("*.py"))}
    return found
