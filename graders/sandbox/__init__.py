"""The sandbox: where student code runs, and the grader's one door to it.

A `Worker` is a process forked by the zygote (zygote.py) that confines itself for good
(confinement.py), imports student modules, one after another for a whole submission
(shared.py, on the baseline of baseline.py), and answers requests with plain data (wire.py).
The grader imports from here only.
"""

from graders.sandbox.confinement import Confinement, plan, warm_paths
from graders.sandbox.process import Budget, Outcome, Settings, StudentError, Worker, outcome_from_reply, reap_killed
from graders.sandbox.tracing import TraceEvent
from graders.sandbox.wire import Scalar, Unsupported, WireError, copy, origin, pack, tensor_bytes, unpack
from graders.sandbox.zygote import ZYGOTE


def prepare() -> None:
    """Get this process ready to have workers: work out what they may read, fork the zygote, and
    seal the process (no later zygote is forked from it). Call it once torch is imported and
    before any reference module or expected value is loaded."""
    warm_paths()
    ZYGOTE.start()
    ZYGOTE.seal()


def zygote_gone() -> bool:
    """Whether this process's zygote died after grading began: see zygote.py."""
    return ZYGOTE.gone()


__all__ = ["Budget", "Confinement", "Outcome", "Scalar", "Settings", "StudentError", "TraceEvent", "Unsupported",
           "WireError", "Worker", "copy", "origin", "outcome_from_reply", "pack", "plan", "prepare", "reap_killed",
           "tensor_bytes", "unpack", "zygote_gone"]
