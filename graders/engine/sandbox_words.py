"""The sandbox's facts in words: every sentence a student reads of how a worker failed is written here.

The sandbox reports what it found as data (graders/sandbox/outcome.py: a `Fact`, a kind with its
numbers and names); the engine says it. So the wording is kept in one place, beside the rest of the
feedback, and the sandbox stays free to change how it finds things without changing what students read.
"""

from __future__ import annotations

from graders.sandbox import (Confinement, Fact, Gap, Kind, NoCgroups, NoCgroupsReason, Refusal, Stage, WallsHeld,
                             WorkerUser)

UNCONFINED = ("the sandbox could not be set up on this machine, so your code was not run (not your fault; "
              "your instructor has been told): {missing}")
FORGED_ANSWER = "the answer did not belong to this call (it was forged or stale)"
ANSWER_TOO_LARGE = "the answer was {size_mb:.0f} MiB, over the {limit_mb} MiB limit"
SLOW_DECODING = "its answer took too long to decode"
NOT_PLAIN_DATA = "the worker sent a message that is not plain data ({refusal})"
# Why the decoder refused a message (graders/sandbox/wire.py's Refusal), as students have read it since the decoder
# wrote it itself: {found} is what it found there, {count} and {limit} how many there were and may be.
REFUSALS = {
    Refusal.SHORT_MESSAGE: "message shorter than its header",
    Refusal.HEADER_PAST_END: "header longer than the message",
    Refusal.TOO_MANY_CONTAINERS: "the answer nests {count:,} lists or dicts, over the limit of {limit:,}",
    Refusal.NOT_JSON: "header is not JSON: {found}",
    Refusal.TOO_DEEP: "nested too deep",
    Refusal.UNEXPECTED_NODE: "unexpected node {found}",
    Refusal.UNKNOWN_NODE: "unknown node {found}",
    Refusal.UNKNOWN_DTYPE: "unknown dtype {found}",
    Refusal.UNKNOWN_TENSOR_DTYPE: "unknown tensor dtype {found}",
    Refusal.SCALAR_NOT_NUMBER: "scalar that is not a number",
    Refusal.TENSOR_SPEC_NOT_OBJECT: "tensor spec is not an object",
    Refusal.GRAD_NOT_TENSOR: "grad that is not a tensor",
    Refusal.BAD_NDARRAY_SPEC: "bad ndarray spec",
    Refusal.BLOB_OUT_OF_ORDER: "blob out of order",
    Refusal.BLOB_PAST_END: "blob runs past the end of the message",
    Refusal.NOT_A_LIST: "expected a list",
    Refusal.NOT_A_PAIR: "expected a key-value pair",
    Refusal.NOT_A_STRING: "expected a string",
    Refusal.BAD_DIMENSION: "bad dimension size",
    Refusal.UNHASHABLE_KEY: "dict key of an unhashable kind",
    Refusal.NOT_A_DICT: "an answer must be a dict",
    Refusal.UNKNOWN_STATUS: "unknown status {found}",
    Refusal.BAD_FACT: "a worker's fact is a dict with a kind of its own",
    Refusal.ERROR_RAISED: "{found}",  # the Python error itself, as Python wrote it
}
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
        return UNCONFINED.format(missing="; ".join(gap_words(fact.confinement) if fact.confinement else fact.names))
    if kind == Kind.FORGED_ANSWER:
        return FORGED_ANSWER
    if kind == Kind.ANSWER_TOO_LARGE:
        return ANSWER_TOO_LARGE.format(size_mb=fact.size_mb, limit_mb=fact.limit_mb)
    if kind == Kind.SLOW_DECODING:
        return SLOW_DECODING
    if kind == Kind.NOT_PLAIN_DATA:
        return NOT_PLAIN_DATA.format(refusal=refusal_words(fact))
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


def refusal_words(fact: Fact) -> str:
    """Why the decoder refused a message, in words; a fact of no known refusal says what text it carries."""
    if fact.refusal is None:
        return fact.text
    return REFUSALS[fact.refusal].format(found=fact.text, count=fact.count, limit=fact.limit)


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


# ---------------------------------------------------------------- a worker's confinement

# What keeps a worker from counting as confined (graders/sandbox/confinement.py's Gap), in the words the JSON's
# "confinement" line, the run's header and an unconfined refusal have always used.
GAPS = {
    Gap.NO_LANDLOCK: "no Landlock on this kernel: files outside the sandbox can be read and written",
    Gap.NO_NETWORK_RULES: "Landlock ABI {abi} has no network rules",
    Gap.NO_SECCOMP: "no seccomp filter: processes, signals and sockets are not restricted",
    Gap.STILL_ROOT: "runs as root (no namespace view to switch to an unprivileged user)",
    Gap.CAPABILITIES_LEFT: "capabilities left: {capabilities}",
    Gap.IN_PROCESS: "--in-process: no sandbox at all",
    Gap.UNREADABLE_REPORT: "an unreadable report",
}
USERS = {WorkerUser.UNPRIVILEGED: "an unprivileged user, no capabilities", WorkerUser.ROOT: "root, no capabilities",
         WorkerUser.GRADER: "the grader's user, no capabilities", WorkerUser.GRADER_PROCESS: "the grader's own process"}
NOT_CONFINED = "NOT CONFINED ({gaps}): {held}"
# Why a worker has no cgroup of its own (graders/sandbox/cgroups.py's NoCgroups), in the words the sandbox wrote itself
# before it returned the fact: {path} is where the groups would go, {error} the error met making them.
NO_CGROUPS = {
    NoCgroupsReason.NOT_ROOT: "no cgroups (the grader is not root)",
    NoCgroupsReason.NO_CONTROLLERS: "no cgroups (no memory, pids and cpu controllers mounted here)",
    NoCgroupsReason.NOT_WRITABLE: "no cgroups ({path} is not writable here)",
    NoCgroupsReason.MAKING_FAILED: "no cgroups ({error} making {path})",
    NoCgroupsReason.LEFT_OUT: "no cgroups (left out by --sandbox-without)",
    NoCgroupsReason.NOT_ENTERED: "no cgroups (its cgroup could not be made)",
    NoCgroupsReason.NOT_LOOKED_FOR: "no cgroups (not looked for yet)",
}
# Landlock's ABI 6 adds abstract sockets and signals to the reads, writes and TCP of the ABIs before it.
FULL_LANDLOCK_ABI = 6


def gap_words(confinement: Confinement) -> list[str]:
    """What is missing for a worker to count as confined, one clause each."""
    capabilities = ", ".join(f"{name}={mask:x}" for name, mask in confinement.capabilities_left)
    return [GAPS[gap].format(abi=confinement.landlock_abi, capabilities=capabilities) for gap in confinement.gaps]


def confinement_summary(confinement: Confinement) -> str:
    """The one line that says what confines a worker (the JSON's "confinement", the run's header)."""
    parts = ((["namespace view"] if confinement.namespace_view else [])
             + ([f"Landlock ABI {confinement.landlock_abi}"] if confinement.landlock_abi else [])
             + (["reads, writes, TCP, abstract sockets and signals limited"]
                if confinement.landlock_abi >= FULL_LANDLOCK_ABI else []))
    held = "; ".join([" + ".join(parts) or "none", "seccomp filter" if confinement.seccomp else "none",
                      USERS[confinement.user]] + ([walls_words(confinement.walls)] if confinement.walls else []))
    return held if confinement.confined else NOT_CONFINED.format(gaps="; ".join(gap_words(confinement)), held=held)


def walls_words(walls: WallsHeld) -> str:
    """What counts a worker's resources, in words; each fallback named as one."""
    if walls.cgroup_version:
        counted = (f"cgroup v{walls.cgroup_version}: {walls.memory_mb} MiB of memory, {walls.tasks} tasks, "
                   f"{walls.cpus:g} CPU")
    else:
        tasks = (f"RLIMIT_NPROC {walls.tasks} for a user of its own" if walls.own_user
                 else "RLIMIT_NPROC above its user's other tasks")
        counted = (f"{no_cgroups_words(walls.no_cgroups)} (fallback: address space {walls.memory_mb} MiB over "
                   f"torch's, {tasks}, no CPU cap but a lower priority)")
    scratch = (f"scratch: a {walls.scratch_mb} MiB tmpfs" if walls.scratch_tmpfs else
               f"scratch: not size-capped (no mount namespace without root; files of at most {walls.max_file_mb} "
               f"MiB each)")
    return f"{counted}; {scratch}; memfd_create refused, at most 256 open files"


def no_cgroups_words(why: NoCgroups | None) -> str:
    """Why a worker has no cgroup of its own, in words (walls that give no reason: its cgroup could not be made)."""
    why = why or NoCgroups(NoCgroupsReason.NOT_ENTERED)
    return NO_CGROUPS[why.reason].format(path=why.path, error=why.error)
