"""A student's grading run leaves as soon as pytest is done, without taking torch apart.

Once `pytest exercises/` has its exit code (every report written, pytest unconfigured), the
interpreter would go on to free each of torch's objects and run libtorch's C++ destructors:
about 0.15 s measured here, the tenth of a student's run, and none of it writes anything. So
the run flushes its output, runs every atexit handler itself (the zygote's stop, coverage's
data file, temporary folders' removal: nothing registered is skipped) and ends with pytest's
code at once.

Only where the process would end anyway: pytest started from its command line (`pytest` or
`python -m pytest`, both `pytest.console_main`). A `pytest.main()` call in a process that goes
on (the batch's grading services, the notebooks' server, the project's own tests in process), a
run under a tool that works after pytest returns (`python -m cProfile -m pytest`) and a run with
a thread that Python would wait for at its end are left alone.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Generator
from types import FrameType

import pytest

ENDS_QUICKLY = pytest.StashKey[bool]()  # set at configure: this run grades exercises, in workers


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, int, int]:
    code = yield  # the whole session, pytest unconfigured at its end (an error raises past here)
    if config.stash.get(ENDS_QUICKLY, False) and _from_the_command_line(sys._getframe()) and _no_thread_to_wait_for():
        _leave(int(code))
    return code


def _from_the_command_line(frame: FrameType | None) -> bool:
    """Whether the innermost `pytest.main` on the stack was called by `pytest.console_main`, itself called
    straight from the program's start (the `pytest` script, or runpy for `python -m pytest`): nothing
    waits for it to return. Under a wrapper such as `python -m cProfile -m pytest`, which writes its
    profile after pytest returns, the run ends as usual."""
    while frame is not None and frame.f_code is not pytest.main.__code__:
        frame = frame.f_back
    caller = frame.f_back if frame is not None else None
    if caller is None or caller.f_code is not pytest.console_main.__code__:
        return False
    outer = caller.f_back
    while outer is not None:
        if outer.f_code.co_name != "<module>" and outer.f_globals.get("__name__") != "runpy":
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
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # an exit handler closed it, or the reader went away: nothing left to say there
    os._exit(code)
