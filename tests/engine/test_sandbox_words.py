"""The sandbox reports facts, the engine words them: each kind of fact has its sentence, unchanged from when the
sandbox wrote them itself (a refused message's reason and a worker's confinement too: the expected texts below are
what the sandbox's own code wrote before it returned facts), and the statuses read and serialise as the plain
strings they were."""

from __future__ import annotations

import json
import signal
import struct

import pytest

from graders.engine.sandbox_words import confinement_summary, gap_words, no_cgroups_words, walls_words, worded
from graders.sandbox import Confinement, Fact, Gap, Kind, Refusal, Stage, Status, WireError, WorkerUser, unpack
from graders.sandbox.cgroups import NoCgroups, NoCgroupsReason, Walls
from graders.sandbox.confinement import WallsHeld, _judge, _walls_held
from graders.sandbox.outcome import ended, outcome_from_reply, refused


@pytest.mark.parametrize("fact, sentence", [
    (Fact(Kind.UNCONFINED, confinement=Confinement(landlock_abi=5, gaps=(Gap.NO_SECCOMP, Gap.IN_PROCESS))),
     "the sandbox could not be set up on this machine, so your code was not run (not your fault; your instructor has "
     "been told): no seccomp filter: processes, signals and sockets are not restricted; --in-process: no sandbox at "
     "all"),
    (Fact(Kind.ANSWER_TOO_LARGE, size_mb=40.4, limit_mb=16), "the answer was 40 MiB, over the 16 MiB limit"),
    (Fact(Kind.OUT_OF_MEMORY, Stage.CALL, limit_mb=2048),
     "the process running it ran out of memory during the call: it held more than 2048 MiB, counting its files in "
     "scratch"),
    (ended(signal.SIGSEGV, Stage.IMPORT),
     "the process running it ended during importing the module: killed by signal SIGSEGV (a crash in native code, "
     "or memory exhausted)"),
    (ended(3 << 8, Stage.CALL, before=True),
     "the process running it ended during before the call: it exited with status 3; does your code call "
     "os._exit(3)?"),
    (ended(None, Stage.SETUP), "the process running it ended during setting up its sandbox: it could not be waited for"),
    (Fact(Kind.NOT_REPLAYED, status=Status.TIMEOUT, cause=Fact(Kind.SLOW_DECODING)),
     "the calls made before this one were made again in a fresh process (to bring the module back to the state they "
     "left), and one of them did not answer this time (timeout: its answer took too long to decode)"),
    (Fact(Kind.NOT_LOADED_AGAIN, status=Status.DIED), "the module could not be loaded again (died)"),
    (Fact(Kind.MODULE_NOT_LOADED, names=("views",)), "no module views is loaded"),
    (Fact(Kind.UNSENDABLE, text="TypeError: no"), "TypeError: no"),
], ids=lambda value: value.kind.value if isinstance(value, Fact) else "")
def test_each_fact_is_worded_as_students_have_read_it(fact: Fact, sentence: str) -> None:
    assert worded(fact) == sentence


@pytest.mark.parametrize("kind", list(Kind))
def test_every_kind_of_fact_has_words(kind: Kind) -> None:
    words = worded(Fact(kind, Stage.CALL, names=("x",), text="an error", status=Status.BROKEN))
    assert words.strip() and "Kind." not in words and "Stage." not in words


def test_no_fact_says_nothing() -> None:
    assert worded(None) == ""


def test_a_status_is_its_plain_string_in_json_in_comparisons_and_in_text() -> None:
    assert json.dumps({"status": Status.RETURNED}) == '{"status": "returned"}'
    assert Status.RETURNED == "returned" and f"({Status.IMPORT_FAILED})" == "(import_failed)"


def _forged(header: object, blob: bytes = b"") -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("!I", len(text)) + text + blob


def _nested(containers: int) -> bytes:
    text = b"[" * containers + b"]" * containers
    return struct.pack("!I", len(text)) + text


@pytest.mark.parametrize("message, reason", [
    (b"\x00\x01", "message shorter than its header"),
    (struct.pack("!I", 99) + b"{}", "header longer than the message"),
    (struct.pack("!I", 5) + b"nope{", "header is not JSON: Expecting value: line 1 column 1 (char 0)"),
    (_nested(200_001), "the answer nests 200,001 lists or dicts, over the limit of 200,000"),
    (_forged({"int": "x"}), "ValueError: invalid literal for int() with base 10: 'x'"),
    (_forged({"dtype": "torch.evil"}), "unknown dtype torch.evil"),
    (_forged({"pickle": "x"}), "unknown node ['pickle']"),
    (_forged({"a": 1, "b": 2, "c": 3, "d": 4}), "unexpected node {'a': 1, 'b': 2, 'c': 3, 'd': 4}"),
    (_forged({"tensor": {"dtype": "torch.float32", "shape": [4], "blob": 0}}, b"\x00" * 8),
     "blob runs past the end of the message"),
    (_forged({"tensor": {"dtype": "torch.float32", "shape": [-1], "blob": 0}}), "bad dimension size"),
    (_forged({"scalar": "a"}), "scalar that is not a number"),
], ids=lambda value: value[:40] if isinstance(value, str) else "")
def test_a_refused_message_is_worded_as_the_decoder_once_wrote_it(message: bytes, reason: str) -> None:
    with pytest.raises(WireError) as refusal:
        unpack(message)
    assert worded(refused(refusal.value)) == f"the worker sent a message that is not plain data ({reason})"


@pytest.mark.parametrize("reply, reason", [
    ([], "an answer must be a dict"),
    ({"status": "bogus"}, "unknown status bogus"),
    ({"status": "returned", "fact": {"kind": "x"}}, "a worker's fact is a dict with a kind of its own"),
])
def test_a_refused_reply_is_worded_as_before(reply: object, reason: str) -> None:
    with pytest.raises(WireError) as refusal:
        outcome_from_reply(reply)
    assert worded(refused(refusal.value)) == f"the worker sent a message that is not plain data ({reason})"


def test_a_python_error_met_reading_a_reply_is_its_own_text() -> None:
    assert worded(refused(KeyError("written"))) == "the worker sent a message that is not plain data ('written')"


def test_every_refusal_has_words_and_the_refusal_itself_holds_no_sentence() -> None:
    for refusal in Refusal:
        words = worded(Fact(Kind.NOT_PLAIN_DATA, refusal=refusal, text="found"))
        assert words.startswith("the worker sent a message that is not plain data (") and "Refusal." not in words
        assert str(WireError(refusal, "found")) == f"{refusal.value}: found"  # a code and what was found, no prose


@pytest.mark.parametrize("judged, summary", [
    (dict(view=True, abi=7, seccomp=True, root=True, switched=True, capabilities={}),
     "namespace view + Landlock ABI 7 + reads, writes, TCP, abstract sockets and signals limited; seccomp filter; "
     "an unprivileged user, no capabilities"),
    (dict(view=False, abi=0, seccomp=False, root=False, switched=False, capabilities={"CapBnd": 0x3f, "CapEff": 0x20}),
     "NOT CONFINED (no Landlock on this kernel: files outside the sandbox can be read and written; no seccomp "
     "filter: processes, signals and sockets are not restricted; capabilities left: CapEff=20): none; none; the "
     "grader's user, no capabilities"),
    (dict(view=False, abi=3, seccomp=True, root=True, switched=False, capabilities={"CapBnd": 0x3f}),
     "NOT CONFINED (Landlock ABI 3 has no network rules; runs as root (no namespace view to switch to an "
     "unprivileged user); capabilities left: CapBnd=3f): Landlock ABI 3; seccomp filter; root, no capabilities"),
    (dict(view=False, abi=5, seccomp=True, root=False, switched=False, capabilities={}),
     "Landlock ABI 5; seccomp filter; the grader's user, no capabilities"),
], ids=["everything", "nothing", "root without a view", "Landlock alone"])
def test_a_confinement_is_summed_up_as_the_sandbox_once_wrote_it(judged: dict, summary: str) -> None:
    confinement = _judge(**judged)
    assert confinement_summary(confinement) == summary
    # What the grader reads off the wire says the same: the report travels as facts.
    assert confinement_summary(Confinement.from_wire(json.loads(json.dumps(confinement.to_wire())))) == summary


WALLS = Walls(2048 * 2**20, 64, 1.0)
NOT_ROOT = NoCgroups(NoCgroupsReason.NOT_ROOT)


class _Groups:
    version = 2


@pytest.mark.parametrize("held, words", [
    (_walls_held(True, NOT_ROOT, WALLS, True, True, 64),
     "no cgroups (the grader is not root) (fallback: address space 2048 MiB over torch's, RLIMIT_NPROC 64 for a user "
     "of its own, no CPU cap but a lower priority); scratch: a 64 MiB tmpfs; memfd_create refused, at most 256 open "
     "files"),
    (_walls_held(False, NOT_ROOT, WALLS, True, False, 64),
     "no cgroups (the grader is not root) (fallback: address space 2048 MiB over torch's, RLIMIT_NPROC 64 for a user "
     "of its own, no CPU cap but a lower priority); scratch: not size-capped (no mount namespace without root; files "
     "of at most 16 MiB each); memfd_create refused, at most 256 open files"),
    (_walls_held(False, NOT_ROOT, WALLS, False, False, 64),
     "no cgroups (the grader is not root) (fallback: address space 2048 MiB over torch's, RLIMIT_NPROC above its "
     "user's other tasks, no CPU cap but a lower priority); scratch: not size-capped (no mount namespace without "
     "root; files of at most 16 MiB each); memfd_create refused, at most 256 open files"),
], ids=["a tmpfs", "its own user", "no user of its own"])
def test_a_workers_walls_are_worded_as_before(held: object, words: str) -> None:
    confinement = Confinement(True, 7, True, WorkerUser.UNPRIVILEGED, walls=held)
    assert confinement_summary(confinement).endswith("; " + words)
    assert Confinement.from_wire(json.loads(json.dumps(confinement.to_wire()))) == confinement


def test_a_cgroup_a_worker_entered_is_worded_as_before() -> None:
    from graders.sandbox.cgroups import Groups

    held = _walls_held(True, Groups(2, {}), WALLS, False, True, 64)
    assert confinement_summary(Confinement(walls=held)).endswith(
        "; cgroup v2: 2048 MiB of memory, 64 tasks, 1 CPU; scratch: a 64 MiB tmpfs; memfd_create refused, at most "
        "256 open files")


@pytest.mark.parametrize("why, words", [
    (NoCgroups(NoCgroupsReason.NOT_ROOT), "no cgroups (the grader is not root)"),
    (NoCgroups(NoCgroupsReason.NO_CONTROLLERS), "no cgroups (no memory, pids and cpu controllers mounted here)"),
    (NoCgroups(NoCgroupsReason.NOT_WRITABLE, "/sys/fs/cgroup/memory/grading"),
     "no cgroups (/sys/fs/cgroup/memory/grading is not writable here)"),
    (NoCgroups(NoCgroupsReason.MAKING_FAILED, "/sys/fs/cgroup/graders-41", "Device or resource busy"),
     "no cgroups (Device or resource busy making /sys/fs/cgroup/graders-41)"),
    (NoCgroups(NoCgroupsReason.LEFT_OUT), "no cgroups (left out by --sandbox-without)"),
    (NoCgroups(NoCgroupsReason.NOT_ENTERED), "no cgroups (its cgroup could not be made)"),
    (NoCgroups(NoCgroupsReason.NOT_LOOKED_FOR), "no cgroups (not looked for yet)"),
], ids=[str(reason) for reason in NoCgroupsReason])
def test_why_there_are_no_cgroups_is_worded_as_the_sandbox_once_wrote_it(why: NoCgroups, words: str) -> None:
    assert no_cgroups_words(why) == words
    held = _walls_held(False, why, WALLS, True, True, 64)
    assert walls_words(held).startswith(words + " (fallback: address space 2048 MiB over torch's")
    # The reason travels as plain strings, and reads back as the same fact.
    wire = json.loads(json.dumps(held.to_wire()))
    assert wire["no_cgroups"] == {"reason": str(why.reason), "path": why.path, "error": why.error}
    assert WallsHeld.from_wire(wire) == held


def test_a_worker_that_was_given_no_groups_says_its_cgroup_could_not_be_made() -> None:
    assert _walls_held(False, None, WALLS, True, True, 64).no_cgroups == NoCgroups(NoCgroupsReason.NOT_ENTERED)
    assert no_cgroups_words(None) == "no cgroups (its cgroup could not be made)"


def test_walls_whose_reason_does_not_read_are_no_walls() -> None:
    wire = _walls_held(False, NOT_ROOT, WALLS, True, True, 64).to_wire()
    for forged in ("no cgroups (the grader is not root)", ["not_root"], {"reason": "made_up"}, {"reason": 3},
                   {"reason": "not_writable", "path": ["/"]}, {"reason": "making_failed", "error": {"a": 1}}, {}):
        assert WallsHeld.from_wire({**wire, "no_cgroups": forged}) is None, forged
        report = {**Confinement().to_wire(), "walls": {**wire, "no_cgroups": forged}}
        assert Confinement.from_wire(report).walls is None
    long = WallsHeld.from_wire({**wire, "no_cgroups": {"reason": "not_writable", "path": "/x" * 500}})
    assert long is not None and long.no_cgroups == NoCgroups(NoCgroupsReason.NOT_WRITABLE, ("/x" * 100))


def test_a_report_that_does_not_read_is_no_confinement() -> None:
    for forged in (None, {"gaps": "none"}, {"gaps": ["made up"], "user": "root"}, {"gaps": [], "user": "god"},
                   {"gaps": [{"a": 1}], "user": "root"}, {"gaps": [], "user": ["root"]}):
        confinement = Confinement.from_wire(forged)
        assert not confinement.confined and gap_words(confinement) == ["an unreadable report"]


def test_in_process_grading_says_there_is_no_sandbox() -> None:
    confinement = Confinement(user=WorkerUser.GRADER_PROCESS, gaps=(Gap.IN_PROCESS,))
    assert confinement_summary(confinement) == (
        "NOT CONFINED (--in-process: no sandbox at all): none; none; the grader's own process")
