"""Generated inputs, drawn by hypothesis with a fixed seed, in a helper process that works
while pytest starts.

Checks on generated inputs (shape pairs, expression graphs) take them from the hypothesis
strategies of graders/<lesson>/cases.py, drawn with a seed that course_config.py names, so
every run grades the same cases. Hypothesis needs about a millisecond per example, which
hundreds of examples would add to every grading run. So the plugin forks a helper at
pytest_configure, before the grader imports torch; the helper draws every case the run's
exercises need while the grader imports torch and starts its workers, and sends each one
as a Python literal over a socket pair. A check reads its cases from there; where no helper
runs (a test calling `drawn` directly, a run the plugin did not foresee) the cases are
drawn in place, with the same result.

This module imports neither torch nor hypothesis at the top: the helper forks before either.
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import os
import select
import signal
import socket
from typing import Any, Callable, Iterator

from graders import sandbox

EXAMPLES_PER_CASE = 20  # hypothesis may draw this many examples per distinct case before giving up
WAIT_SECONDS = 30.0  # silence from the helper after which the grader draws in place


class _Enough(Exception):
    """Raised inside the drawing loop once enough distinct examples are in: it stops hypothesis."""


def distinct(strategy: Any, count: int, seed: int) -> list:
    """The first `count` distinct examples hypothesis draws from `strategy` with this seed."""
    import hypothesis
    from hypothesis import HealthCheck, Phase, Verbosity

    found: dict[str, Any] = {}  # by repr (1 and 1.0 differ in a graph); a dict keeps the order

    # Only the seed decides the cases: hypothesis's example database, phases other than plain
    # generation, health checks and deadlines would each make them depend on the machine.
    @hypothesis.seed(seed)
    @hypothesis.settings(database=None, max_examples=count * EXAMPLES_PER_CASE, phases=(Phase.generate,),
                         derandomize=False, deadline=None, suppress_health_check=list(HealthCheck),
                         verbosity=Verbosity.quiet, report_multiple_bugs=False, print_blob=False,
                         backend="hypothesis")
    @hypothesis.given(strategy)
    def collect(example: Any) -> None:
        found.setdefault(repr(example), example)
        if len(found) >= count:
            raise _Enough

    with _only_this_seed():
        try:
            collect()
        except _Enough:
            pass
    if len(found) < count:
        raise RuntimeError(f"hypothesis drew {len(found)} distinct examples, not {count}: widen the strategy")
    return list(found.values())


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


class Drawer:
    """The helper process, and the cases it has sent so far.

    Normally both last one pytest session. A long-lived process that runs one session per
    exercise (the notebook's grading server) keeps them instead, so that its first session
    draws for the whole lesson while torch loads and the later ones find their cases ready.
    """

    def __init__(self) -> None:
        self.pid: int | None = None
        # Our end of a socket pair: unlike a pipe, it cannot be reopened through /proc/<pid>/fd.
        self.sock: socket.socket | None = None
        self.pending = b""  # the start of a line the helper has not finished sending
        self.received: dict[str, str] = {}  # each case as a Python literal
        self.started = False
        atexit.register(self.close)

    def start(self, exercises: list[tuple[str, str]] | Callable[[], list[tuple[str, str]]]) -> None:
        """Fork the helper to draw every recipe of these (lesson folder, slug) exercises, in this order;
        given as a function, the helper calls it to know them (what it needs to read, the course, stays
        out of this process: the plugin's zygote may not be forked yet).

        Once a helper was started, new exercises are left to be drawn in place; so are all of
        them if the fork fails."""
        if self.started:
            return
        self.started = True
        ours, theirs = socket.socketpair()
        pid = sandbox.fork_or_close(ours, theirs)
        if pid is None:
            return
        if pid == 0:  # the helper: never returns
            try:
                _draw_into(theirs, exercises() if callable(exercises) else exercises)
            finally:
                os._exit(0)
        theirs.close()
        self.pid, self.sock = pid, ours

    def get(self, lesson: str, slug: str, name: str) -> Any:
        key = f"{lesson}/{slug}.{name}"
        self._take_shipped(key, lesson, slug, name)
        while key not in self.received and self.sock is not None:
            if not self._receive():  # the helper is done (it skips a recipe that failed), or stuck
                self._reap()
        self._reap_if_finished()
        if key not in self.received:  # drawn here: the same seed gives the same cases
            # Imported here, not at the top: this module is part of the plugin's light start, which holds no more
            # of ours than graders/sandbox/zygote.py's _LIGHT lists.
            from graders.engine.case_recipes import recipes

            self.received[key] = repr(recipes(lesson)[slug][name]())
        return ast.literal_eval(self.received[key])  # kept as text: each check gets its own copy

    def _take_shipped(self, key: str, lesson: str, slug: str, name: str) -> None:
        """The cases shipped with the course (shipped_cases.py), where they are up to date: no helper to wait for."""
        from graders.engine import shipped_cases

        if key not in self.received and (literal := shipped_cases.case(lesson, slug, name)) is not None:
            self.received[key] = literal

    def close(self) -> None:
        """Stop the helper and forget its cases."""
        self._reap()
        self.received.clear()
        self.started = False

    def _receive(self, seconds: float = WAIT_SECONDS) -> bool:
        """Read what the helper sent next; False at its end, or after `seconds` without a word."""
        assert self.sock is not None
        if not select.select([self.sock], [], [], seconds)[0]:
            return False
        data = self.sock.recv(1 << 16)
        if not data:
            return False
        *lines, self.pending = (self.pending + data).split(b"\n")
        for line in lines:  # only whole lines: a helper killed mid-line leaves its start in pending
            sent, _, literal = line.decode("utf-8").partition("\t")
            self.received[sent] = literal
        return True

    def _reap_if_finished(self) -> None:
        # A helper that has sent everything need not wait, a zombie, for the end of the process.
        try:
            finished = self.pid is not None and os.waitpid(self.pid, os.WNOHANG)[0] != 0
        except ChildProcessError:
            finished = True
        if finished:
            self.pid = None
            while self._receive(seconds=0):
                pass
            self._reap()

    def _reap(self) -> None:
        if self.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)  # it may still be drawing cases this run did not need
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = None
        if self.sock is not None:
            self.sock.close()
            self.sock = None
        self.pending = b""


def _draw_into(sock: socket.socket, exercises: list[tuple[str, str]]) -> None:
    """The helper's whole life: draw, send one line per recipe (its key, a tab, a literal)."""
    # Keep nothing of the grader's open but our end of the pair: holding its pipes open would
    # delay whoever waits for them to close.
    os.closerange(3, sock.fileno())
    os.closerange(sock.fileno() + 1, 1 << 20)
    quiet = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(quiet, fd)
    from graders.engine import shipped_cases

    # What the course ships up to date is read by the grader itself: nothing to draw, and hypothesis not even loaded.
    for lesson, slug in [(lesson, slug) for lesson, slug in exercises if not shipped_cases.covers(lesson, slug)]:
        for name, recipe in _recipes_or_none(lesson).get(slug, {}).items():
            try:
                literal = repr(recipe())
            except Exception:  # noqa: BLE001 - the grader draws it again and reports the error there
                continue
            sock.sendall(f"{lesson}/{slug}.{name}\t{literal}\n".encode("utf-8"))


def _recipes_or_none(lesson: str) -> dict[str, dict[str, Callable[[], Any]]]:
    from graders.engine.case_recipes import recipes

    try:
        return recipes(lesson)
    except ModuleNotFoundError:  # a lesson without generated inputs
        return {}


DRAWER = Drawer()


def drawn(lesson: str, slug: str, name: str) -> Any:
    """The generated inputs `name` of an exercise (a seed name in its manifest); recorded
    with the expected values, so that a student bundle replays them without hypothesis."""
    from graders.engine.recording import RECORDING  # imports torch: not at the top, see the docstring

    return RECORDING.through(f"drawn:{lesson}/{slug}.{name}", lambda: DRAWER.get(lesson, slug, name), (), {})
