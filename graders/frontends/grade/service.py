"""A grading service: one fresh process that grades one submission after another, for a Dask worker.

`python -m graders.frontends.grade.service LOG` is started by the worker plugin (dask_grading.py) with
`subprocess`, never forked from the Dask worker: that worker is daemonic and multi-threaded, and
its memory holds every answer it was sent. A fresh interpreter holds none of it. Before it reads
any request, the service imports torch and forks its zygote from itself (graders/sandbox/zygote.py:
it holds nothing a worker may not see yet), so every worker of every student it grades is a copy of
that clean moment. Only then does it load pytest, the plugin and the checks.

Requests come one per line on stdin, as JSON; each reply is one JSON line on the stdout it was
started with (pytest's own output goes to LOG):

    {"op": "hello"}                      -> the course's digest, what the sandbox holds here
    {"op": "reference", "slugs": [...]}  -> the reference's expected values for these exercises
    {"op": "grade", "student", "lesson", "slugs", "sources": {slug: text}, "expected": PATH}
                                         -> the JSON result, and the feedback's plots as base64

A student's answers are written to a scratch folder of their own and removed after grading.
"""

from __future__ import annotations

import base64
import contextlib
import ctypes
import json
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

_PR_SET_PDEATHSIG = 1
# Set on a worker machine by the instructor only, to see what a batch does where the sandbox cannot fully
# hold (the tests): the steps of --sandbox-without this service leaves out. Never for grading.
LEAVE_OUT_VARIABLE = "GRADERS_TEST_SANDBOX_WITHOUT"
DRAW_VARIABLE = "GRADERS_SERVICE_DRAWS"  # set by dask_worker.py: "lesson/slug,..." to draw while torch loads


def main(log: str) -> None:
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    handle = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(handle, 1)
    os.dup2(handle, 2)
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # dies with its Dask worker, even by kill -9
    draws = [tuple(item.split("/", 1)) for item in os.environ.pop(DRAW_VARIABLE, "").split(",") if "/" in item]
    if draws:  # the reference's generated inputs, drawn by a helper while torch loads (graders/engine/drawing.py)
        from graders.engine import drawing

        drawing.DRAWER.start(draws)
    with contextlib.suppress(OSError), open("/proc/self/oom_score_adj", "w") as score:
        score.write("0")  # never the batch's protection from the OOM killer (its workers raise theirs to 1000)
    import torch

    from graders.sandbox import ZYGOTE

    ZYGOTE.start(fork=True)  # nothing of the grading is loaded yet: the zygote is a copy of this moment
    torch.set_num_threads(1)  # one service per thread of a Dask worker: one thread each
    Service(os.environ.get(LEAVE_OUT_VARIABLE, "")).serve(sys.stdin, replies)
    ZYGOTE.close()  # waits while the zygote removes its workers' cgroups (a service forked by the template ends
    # with os._exit, which runs no atexit)


class Service:
    def __init__(self, leave_out: str) -> None:
        import pytest  # noqa: F401 - loaded once, before the first request
        import course_config
        from graders.engine import plots
        from graders import sandbox
        from graders.sandbox import make_scratch
        from graders.frontends.grade.store import course_digest
        import graders.engine.session  # noqa: F401

        self.course = course_config
        self.digest = course_digest()
        self.leave_out = leave_out
        self.plan = sandbox.plan(frozenset(s for s in leave_out.split(",") if s))
        for lesson in course_config.LESSONS:  # the checks, collected by every request
            for exercise in lesson.exercises:
                __import__(f"graders.{lesson.folder}.{exercise.slug}.checks")
        plots.warm_up()
        from graders.engine.session import EXIT_ZYGOTE_GONE

        self.zygote_gone = EXIT_ZYGOTE_GONE
        self.scratch = make_scratch("graders-service")  # a killed service's folder is cleared by the next one

    def serve(self, requests: TextIO, replies: TextIO) -> None:
        for line in requests:
            request = json.loads(line)
            reply = getattr(self, f"_{request['op']}")(request)
            replies.write(json.dumps(reply) + "\n")
            replies.flush()
            if reply.get("exit") == self.zygote_gone:  # no zygote, no worker: a fresh service is started
                break
        shutil.rmtree(self.scratch, ignore_errors=True)

    def _hello(self, request: dict[str, Any]) -> dict[str, Any]:
        return {"course": self.digest, "confined": self.plan.confined, "missing": list(self.plan.missing),
                "summary": self.plan.summary()}

    def _reference(self, request: dict[str, Any]) -> dict[str, Any]:
        import pytest

        folder = Path(tempfile.mkdtemp(dir=self.scratch))
        cache = folder / "expected.json"
        os.chdir(folder)
        code = int(pytest.main([*self._targets(request["lesson"], request["slugs"]),
                                "--submission", str(self.course.ROOT / "reference"), "--expected-cache", str(cache),
                                "-q", "-p", "no:cacheprovider", "--plots", str(folder / "plots")]))
        try:
            values = json.loads(cache.read_text())
        except (OSError, ValueError):
            values = None
        os.chdir(self.scratch)
        shutil.rmtree(folder, ignore_errors=True)
        return {"exit": code, "values": values}

    def _grade(self, request: dict[str, Any]) -> dict[str, Any]:
        import pytest

        lesson = request["lesson"]
        folder = Path(tempfile.mkdtemp(dir=self.scratch))
        (folder / lesson).mkdir()
        for slug, source in request["sources"].items():
            (folder / lesson / f"{slug}.py").write_text(source, encoding="utf-8")
        result, plots = folder / "result.json", folder / "plots"
        options = ["-p", "no:cacheprovider", "-p", "no:unraisableexception", "-q",
                   "--expected-cache", request["expected"]]
        if not request.get("allow_unconfined"):
            options.append("--require-confinement")
        if self.leave_out:
            options += ["--sandbox-without", self.leave_out]
        os.chdir(folder)  # the messages name the student's files relative to it
        code = int(pytest.main([*self._targets(lesson, request["slugs"]), "--submission", str(folder),
                                "--json", str(result), "--plots", str(plots), *options]))
        try:
            graded = json.loads(result.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            graded = None
        if code == self.zygote_gone:  # some answers are missing: no result, and a fresh service grades them again
            graded = None
        files = {}
        for path in plots.rglob("*") if plots.is_dir() else ():
            if path.is_file() and not path.is_symlink():
                files[str(path)] = base64.b64encode(path.read_bytes()).decode()
        os.chdir(self.scratch)
        shutil.rmtree(folder, ignore_errors=True)
        return {"exit": code, "result": graded, "files": files}

    def _targets(self, lesson: str, slugs: list[str]) -> list[str]:
        chosen = next(l for l in self.course.LESSONS if l.folder == lesson)
        return [str(self.course.ROOT / "exercises" / lesson / f"{e.slug}.py") for e in chosen.exercises
                if e.slug in slugs]


if __name__ == "__main__":
    main(sys.argv[1])
