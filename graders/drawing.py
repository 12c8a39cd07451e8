"""Generated inputs, drawn by hypothesis with a fixed seed, in a helper process that works
while pytest starts.

Checks on generated inputs (shape pairs, expression graphs) take them from the hypothesis
strategies of graders/cases/<lesson>.py, drawn with a seed that course_config.py names, so
every run grades the same cases. Hypothesis needs about a millisecond per example, which
hundreds of examples would add to every grading run. So the plugin forks a helper at
pytest_configure, before the grader imports torch; the helper draws every case the run's
exercises need while the grader imports torch and starts its workers, and sends each one
as a Python literal down a pipe. A check reads its cases from the pipe; where no helper
runs (a test calling `drawn` directly, a run the plugin did not foresee) the cases are
drawn in place, with the same result.

This module imports neither torch nor hypothesis at the top: the helper forks before either.
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import importlib
import os
import signal
from typing import Any, Callable, Iterator

EXAMPLES_PER_CASE = 20  # hypothesis may draw this many examples per distinct case before giving up


class _Enough(Exception):
    """Raised inside the drawing loop once enough distinct examples are in: it stops hypothesis."""


def distinct(strategy: Any, count: int, seed: int) -> list:
    """The first `count` distinct examples hypothesis draws from `strategy` with this seed."""
    import hypothesis
    from hypothesis import HealthCheck, Phase, Verbosity

    found: dict[Any, None] = {}  # a dict keeps the order of first appearance

    # Only the seed decides the cases: hypothesis's example database, phases other than plain
    # generation, health checks and deadlines would each make them depend on the machine.
    @hypothesis.seed(seed)
    @hypothesis.settings(database=None, max_examples=count * EXAMPLES_PER_CASE, phases=(Phase.generate,),
                         derandomize=False, deadline=None, suppress_health_check=list(HealthCheck),
                         verbosity=Verbosity.quiet, report_multiple_bugs=False, print_blob=False,
                         backend="hypothesis")
    @hypothesis.given(strategy)
    def collect(example: Any) -> None:
        found.setdefault(example, None)
        if len(found) >= count:
            raise _Enough

    with _only_this_seed():
        try:
            collect()
        except _Enough:
            pass
    if len(found) < count:
        raise RuntimeError(f"hypothesis drew {len(found)} distinct examples, not {count}: widen the strategy")
    return list(found)


@contextlib.contextmanager
def _only_this_seed() -> Iterator[None]:
    """Keep hypothesis from mixing in constants found in the local modules this process loaded.

    It does so for one draw in twenty, which would make the cases depend on what else was
    imported (the helper has loaded less than the grader) and on whether the course is
    installed editable. Internal API of hypothesis, pinned in pyproject.toml; the test of
    this module fails if it moves.
    """
    from hypothesis.internal.conjecture import providers
    from hypothesis.internal.constants_ast import Constants

    own = providers._get_local_constants
    providers.CONSTANTS_CACHE.cache.clear()  # may hold another process state's local constants
    providers._get_local_constants = lambda: Constants()
    try:
        yield
    finally:
        providers._get_local_constants = own
        providers.CONSTANTS_CACHE.cache.clear()


def recipes(lesson: str) -> dict[str, dict[str, Callable[[], Any]]]:
    """Per exercise slug, its generated inputs by name, each a function that draws them."""
    return importlib.import_module(f"{__package__}.cases.{lesson}").RECIPES


class Drawer:
    """The helper process, and the cases it has sent so far.

    Normally both last one pytest session. A long-lived process that runs one session per
    exercise (the notebook's grading server) keeps them instead, so that its first session
    draws for the whole lesson while torch loads and the later ones find their cases ready.
    """

    def __init__(self) -> None:
        self.pid: int | None = None
        self.reader: Any = None
        self.received: dict[str, str] = {}
        self.covered: set[tuple[str, str]] = set()  # exercises a helper was started for
        atexit.register(self.close)

    def start(self, exercises: list[tuple[str, str]]) -> None:
        """Fork the helper to draw every recipe of these (lesson folder, slug) exercises, in this order.

        With a helper already started, new exercises are left to be drawn in place."""
        if self.covered:
            return
        self.covered = set(exercises)
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the helper
            os.close(read_end)
            _draw_into(write_end, exercises)
        os.close(write_end)
        self.pid, self.reader = pid, os.fdopen(read_end, "r", encoding="utf-8")

    def get(self, lesson: str, slug: str, name: str) -> Any:
        key = f"{lesson}/{slug}.{name}"
        while key not in self.received and self.reader is not None:
            line = self.reader.readline()
            if not line:  # the helper is done; it skips a recipe that failed
                self._reap()
                break
            sent, _, literal = line.partition("\t")
            self.received[sent] = literal
        if key in self.received:  # kept: two checks may grade the same inputs
            return ast.literal_eval(self.received[key])
        return recipes(lesson)[slug][name]()  # drawn here: the same seed gives the same cases

    def close(self) -> None:
        """Stop the helper and forget its cases."""
        self._reap()
        self.received.clear()
        self.covered.clear()

    def _reap(self) -> None:
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)  # it may still be drawing cases this run did not need
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = None
        if self.reader is not None:
            self.reader.close()
            self.reader = None


def _draw_into(write_end: int, exercises: list[tuple[str, str]]) -> None:
    """The helper's whole life: draw, write one line per recipe, leave without pytest's exit handlers."""
    try:
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C in the terminal ends it with pytest
        with os.fdopen(write_end, "w", encoding="utf-8") as out:
            for lesson, slug in exercises:
                for name, recipe in _recipes_or_none(lesson).get(slug, {}).items():
                    try:
                        literal = repr(recipe())
                    except Exception:  # noqa: BLE001 - the grader draws it again and reports the error there
                        continue
                    out.write(f"{lesson}/{slug}.{name}\t{literal}\n")
                    out.flush()
    finally:
        os._exit(0)


def _recipes_or_none(lesson: str) -> dict[str, dict[str, Callable[[], Any]]]:
    try:
        return recipes(lesson)
    except ModuleNotFoundError:  # a lesson without generated inputs
        return {}


DRAWER = Drawer()


def drawn(lesson: str, slug: str, name: str) -> Any:
    """The generated inputs `name` of an exercise (a seed name in course_config.py); recorded
    with the expected values, so that a student bundle replays them without hypothesis."""
    from graders.recording import RECORDING  # imports torch: not at the top, see the docstring

    return RECORDING.through(f"drawn:{lesson}/{slug}.{name}", lambda: DRAWER.get(lesson, slug, name), (), {})
