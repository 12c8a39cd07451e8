"""A student's grading run leaves as soon as pytest is done, without taking torch apart.

Once `pytest exercises/` has its exit code (every report written, pytest unconfigured), the
interpreter would go on to free each of torch's objects and run libtorch's C++ destructors:
about 0.15 s measured here, the tenth of a student's run, and none of it writes anything. So
the run flushes its output, runs every atexit handler itself (the zygote's stop, coverage's
data file, temporary folders' removal: nothing registered is skipped), flushes Python's and
the C library's buffers, and ends with pytest's code at once.

Only where the process would end anyway, with that code: pytest started from its command line
(`pytest`, whose script is `sys.exit(console_main())`, or `python -m pytest`, whose module is
`raise SystemExit(pytest.console_main())`), with nothing around it but Python's own start. A
`pytest.main()` call in a process that goes on (the batch's grading services, the notebooks'
server, the project's own tests in process), a run inside a tool or script that works after
pytest returns (`python -m cProfile -m pytest`, a `try`/`finally` around runpy) and a run with a
thread that Python would wait for at its end are left alone.
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
# The one statement that calls console_main in pytest's own entry points (spaces taken out): its value is the
# process's exit code.
_EXITS_WITH_IT = re.compile(r"(sys\.exit|raiseSystemExit)\((pytest\.)?console_main\(\)\)")
_FLUSH_FAILED = 120  # what CPython's own exit returns when its last flush of stdout or stderr fails


@pytest.hookimpl(wrapper=True, tryfirst=True)  # outermost: no wrapper of another plugin has work left after it
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, int, int]:
    code = yield  # the whole session, pytest unconfigured at its end (an error raises past here)
    if config.stash.get(ENDS_QUICKLY, False) and _from_the_command_line(sys._getframe()) and _no_thread_to_wait_for():
        _leave(int(code))
    return code


def _from_the_command_line(frame: FrameType | None) -> bool:
    """Whether the innermost `pytest.main` on the stack was called by `pytest.console_main`, called in turn by
    the statement that exits with its value, at the top of the program or of runpy's `python -m`."""
    while frame is not None and frame.f_code is not pytest.main.__code__:
        frame = frame.f_back
    console = frame.f_back if frame is not None else None
    if console is None or console.f_code is not pytest.console_main.__code__:
        return False
    entry = console.f_back
    if entry is None or entry.f_code.co_name != "<module>" or entry.f_globals.get("__name__") != "__main__":
        return False
    if not _EXITS_WITH_IT.search(re.sub(r"\s", "", linecache.getline(entry.f_code.co_filename, entry.f_lineno))):
        return False
    outer = entry.f_back
    while outer is not None:  # only runpy's frames above `python -m pytest`; none above the script
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
        return  # pytest's console_main has its own way out of a closed pipe
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
