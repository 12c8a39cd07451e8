"""The sandbox: where student code runs, and the grader's one door to it.

A `Worker` is a process forked by the zygote (zygote.py, a fresh interpreter that holds nothing
of the grader: fork_server.py) that confines itself for good (confinement.py), imports student
modules, one after another for a whole submission (shared.py, on the baseline of baseline.py),
and answers requests with plain data (wire.py). The grader imports from here only.

Starting the zygote needs no torch, so `start_zygote` is importable before torch is; every
other name loads the torch-side modules on first use (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import Any

from graders.sandbox.zygote import ZYGOTE

_LAZY = {
    "Budget": "budget", "Outcome": "outcome", "Status": "outcome", "Stage": "outcome", "Fact": "outcome",
    "Kind": "outcome", "StudentError": "outcome", "outcome_from_reply": "outcome",
    "Settings": "process", "Worker": "process", "reap_killed": "process",
    "Confinement": "confinement", "Gap": "confinement", "WallsHeld": "confinement", "WorkerUser": "confinement", "STEPS": "confinement", "plan": "confinement",
    "NoCgroups": "cgroups", "NoCgroupsReason": "cgroups",
    "SubmissionWorker": "shared", "fork_or_close": "forking", "die_with_parent": "forking", "install_eager_dynamo": "eager_dynamo", "InProcess": "in_process",
    "make_scratch": "scratch", "sweep_scratch": "scratch", "nothing_of_the_grading": "zygote", "TraceEvent": "tracing",
    "Scalar": "wire", "Unsupported": "wire", "WireError": "wire", "Refusal": "wire", "copy": "wire", "origin": "wire",
    "pack": "wire", "tensor_bytes": "wire", "unpack": "wire",
}


def start_zygote(fork: bool = False, warm_ups: tuple[str, ...] = ()) -> None:
    """Start this process's zygote now, unless one runs: forked from here while nothing of the grading
    is loaded, if `fork` (a student's own run, torch just imported), else exec'd (see zygote.py). The
    zygote runs `warm_ups` (drivers' "module:function"s) as soon as it has loaded, before any worker
    is asked for, so that the first one is forked without waiting for them."""
    ZYGOTE.start(fork)
    if warm_ups:
        ZYGOTE.warm(warm_ups)


def prepare() -> int:
    """Get this process ready to have workers; returns the zygote's generation, which
    `zygote_died_since` compares with."""
    ZYGOTE.start()
    return ZYGOTE.generation


def zygote_died_since(generation: int) -> bool:
    """Whether the zygote this session began with died (its workers with it, so some answers
    may be missing): see zygote.py."""
    return ZYGOTE.generation != generation or ZYGOTE.died()


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


__all__ = ["Budget", "Confinement", "Fact", "Gap", "WallsHeld", "WorkerUser", "Kind", "Stage", "Status", "die_with_parent", "fork_or_close", "InProcess", "make_scratch", "sweep_scratch", "Outcome", "Refusal", "STEPS", "Scalar", "Settings", "StudentError", "SubmissionWorker", "TraceEvent", "Unsupported",
           "WireError", "Worker", "copy", "origin", "outcome_from_reply", "pack", "plan", "prepare", "reap_killed",
           "start_zygote", "tensor_bytes", "unpack", "zygote_died_since", "ZYGOTE", "install_eager_dynamo", "nothing_of_the_grading"]
