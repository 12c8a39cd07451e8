"""A student's grading run leaves as soon as pytest is done, without taking torch apart.

Once `pytest exercises/` has its exit code (every report written, pytest unconfigured), the
interpreter would go on to free each of torch's objects and run libtorch's C++ destructors:
about 0.15 s measured here, the tenth of a student's run, and none of it writes anything. So
the run flushes its output, runs every atexit handler itself (the zygote's stop, coverage's
data file, temporary folders' removal: nothing registered is skipped), flushes Python's and
the C library's buffers, and ends with pytest's code at once.

Only where the process would end anyway, with that code. That is read off the call stack in terms that
do not depend on how a pytest release spells its entry points (pytest 9.1 moved its script from
`console_main` to a private `_console_main`, and a check of that name stopped matching):

- the program's own `__main__` statement ends the process with the value of one call: `sys.exit(f())`
  or `raise SystemExit(f())`, as pytest's script, `python -m pytest` and a one-line script do;
- every frame between that statement and this hook is pytest's or pluggy's own, so no one else's code
  would run after pytest returns (the packages are found from the public `pytest.main` and
  `pytest.hookimpl`, not from a private module path);
- above the `__main__` frame there are only runpy's (`python -m`).

Anything else ends as pytest always did: a `pytest.main()` call in a process that goes on (the batch's
grading services, the notebooks' server, the project's own tests in process), a run inside a tool or
script that works after pytest returns (`python -m cProfile -m pytest`, a `try`/`finally` around
runpy), and a run with a thread that Python would wait for at its end. Should a pytest release start in
a shape none of this matches, a run is 0.15 s slower and nothing else changes; the tests in
tests/frontends/test_quick_exit.py run on the installed pytest and fail on such a release, so it is seen.
"""

from __future__ import annotations

import atexit
import linecache
import os
import re
import sys
import threading
from collections.abc import Generator
from types import FrameType

import pytest

ENDS_QUICKLY = pytest.StashKey[bool]()  # set at configure: this run grades exercises, in workers
# The program's statement that started pytest, spaces taken out: it exits with the value of the one call it makes.
_EXITS_WITH_A_CALL = re.compile(r"^(sys\.exit|raiseSystemExit)\([\w.]+\(\)\)$")
_FLUSH_FAILED = 120  # what CPython's own exit returns when its last flush of stdout or stderr fails
# The top-level packages whose frames may stand between the program's statement and this hook.
_PYTESTS_OWN = frozenset(module.partition(".")[0]
                         for module in ("pytest", pytest.main.__module__, type(pytest.hookimpl).__module__))


@pytest.hookimpl(wrapper=True, tryfirst=True)  # outermost: no wrapper of another plugin has work left after it
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, int, int]:
    code = yield  # the whole session, pytest unconfigured at its end (an error raises past here)
    if config.stash.get(ENDS_QUICKLY, False) and _ends_the_program(sys._getframe().f_back) \
            and _no_thread_to_wait_for():
        _leave(int(code))
    return code


def _ends_the_program(frame: FrameType | None) -> bool:
    """Whether the program ends with pytest's value once `frame` returns: nothing but pytest's and pluggy's
    frames from `frame` out to a `__main__` statement that exits with its call's value, and runpy's above it."""
    while frame is not None and frame.f_code.co_name != "<module>" \
            and frame.f_globals.get("__name__", "").partition(".")[0] in _PYTESTS_OWN:
        frame = frame.f_back
    if frame is None or frame.f_code.co_name != "<module>" or frame.f_globals.get("__name__") != "__main__":
        return False
    if not _EXITS_WITH_A_CALL.match(re.sub(r"\s", "", linecache.getline(frame.f_code.co_filename, frame.f_lineno))):
        return False
    outer = frame.f_back
    while outer is not None:  # only runpy's frames above `python -m pytest`; none above a script
        if outer.f_globals.get("__name__") != "runpy":
            return False
        outer = outer.f_back
    return True


def _no_thread_to_wait_for() -> bool:
    return all(thread.daemon or thread is threading.main_thread() for thread in threading.enumerate())


def _leave(code: int) -> None:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:
        return  # pytest's entry point has its own way out of a closed pipe
    atexit._run_exitfuncs()  # what the interpreter's exit would run first, in the same order
    for stream in {id(s): s for s in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__) if s}.values():
        try:
            if not stream.closed:
                stream.flush()
        except (OSError, ValueError):
            code = _FLUSH_FAILED
    _flush_c_streams()  # os._exit skips the C library's exit, which would write what C code left buffered
    os._exit(code)


def _flush_c_streams() -> None:
    import ctypes

    try:
        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError):  # no C library to load by that name: nothing of it buffered here
        pass
