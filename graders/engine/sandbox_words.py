"""The sandbox's facts in words: every sentence a student reads of how a worker failed is written here.

The sandbox reports what it found as data (graders/sandbox/outcome.py: a `Fact`, a kind with its
numbers and names); the engine says it. So the wording is kept in one place, beside the rest of the
feedback, and the sandbox stays free to change how it finds things without changing what students read.
"""

from __future__ import annotations

from graders.sandbox import Fact, Kind, Stage

UNCONFINED = ("the sandbox could not be set up on this machine, so your code was not run (not your fault; "
              "your instructor has been told): {missing}")
FORGED_ANSWER = "the answer did not belong to this call (it was forged or stale)"
ANSWER_TOO_LARGE = "the answer was {size_mb:.0f} MiB, over the {limit_mb} MiB limit"
SLOW_DECODING = "its answer took too long to decode"
NOT_PLAIN_DATA = "the worker sent a message that is not plain data ({text})"
OUT_OF_MEMORY = ("the process running it ran out of memory during {during}: it held more than {limit_mb} MiB, "
                 "counting its files in scratch")
ENDED = "the process running it ended during {during}: {how}"
NOT_LOADED_AGAIN = "the module could not be loaded again ({status})"
NOT_REPLAYED = ("the calls made before this one were made again in a fresh process (to bring the module back to the "
                "state they left), and one of them did not answer this time ({status}{cause})")
THREAD_LEFT = "a thread started by an earlier module is still running"
LIMIT_CHANGED = "an earlier module changed a resource limit"
MODULE_NOT_LOADED = "no module {name} is loaded"
_STAGES = {Stage.SETUP: "setting up its sandbox", Stage.IMPORT: "importing the module", Stage.CALL: "the call"}
_CRASHES = ("SIGSEGV", "SIGBUS", "SIGABRT")  # signals a crash in native code sends, or memory exhausted


def worded(fact: Fact | None) -> str:
    """What a student reads of `fact`: a clause that a message's "got" or "detail" holds; "" for none."""
    if fact is None:
        return ""
    kind = fact.kind
    if kind == Kind.UNCONFINED:
        return UNCONFINED.format(missing="; ".join(fact.names))
    if kind == Kind.FORGED_ANSWER:
        return FORGED_ANSWER
    if kind == Kind.ANSWER_TOO_LARGE:
        return ANSWER_TOO_LARGE.format(size_mb=fact.size_mb, limit_mb=fact.limit_mb)
    if kind == Kind.SLOW_DECODING:
        return SLOW_DECODING
    if kind == Kind.NOT_PLAIN_DATA:
        return NOT_PLAIN_DATA.format(text=fact.text)
    if kind == Kind.OUT_OF_MEMORY:
        return OUT_OF_MEMORY.format(during=_during(fact), limit_mb=fact.limit_mb)
    if kind == Kind.ENDED:
        return ENDED.format(during=_during(fact), how=_how_it_ended(fact))
    if kind == Kind.NOT_LOADED_AGAIN:
        return NOT_LOADED_AGAIN.format(status=fact.status)
    if kind == Kind.NOT_REPLAYED:
        cause = worded(fact.cause)
        return NOT_REPLAYED.format(status=fact.status, cause=f": {cause}" if cause else "")
    if kind == Kind.THREAD_LEFT:
        return THREAD_LEFT
    if kind == Kind.LIMIT_CHANGED:
        return LIMIT_CHANGED
    if kind == Kind.MODULE_NOT_LOADED:
        return MODULE_NOT_LOADED.format(name=fact.names[0] if fact.names else "")
    return fact.text  # UNSENDABLE: the error met in packing the answer, as the worker gave it


def _during(fact: Fact) -> str:
    stage = _STAGES[fact.stage or Stage.CALL]
    return f"before {stage}" if fact.before else stage


def _how_it_ended(fact: Fact) -> str:
    if fact.signal:
        why = " (a crash in native code, or memory exhausted)" if fact.signal in _CRASHES else ""
        return f"killed by signal {fact.signal}{why}"
    if fact.exit_status is None:
        return "it could not be waited for"
    if fact.exit_status == 0:
        return "it exited with status 0; does your code call os._exit() or exit the interpreter?"
    return f"it exited with status {fact.exit_status}; does your code call os._exit({fact.exit_status})?"
