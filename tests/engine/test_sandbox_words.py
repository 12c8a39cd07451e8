"""The sandbox reports facts, the engine words them: each kind of fact has its sentence, unchanged from when the
sandbox wrote them itself, and the statuses read and serialise as the plain strings they were."""

from __future__ import annotations

import json
import signal

import pytest

from graders.engine.sandbox_words import worded
from graders.sandbox import Fact, Kind, Stage, Status
from graders.sandbox.outcome import ended


@pytest.mark.parametrize("fact, sentence", [
    (Fact(Kind.UNCONFINED, names=("landlock", "seccomp")),
     "the sandbox could not be set up on this machine, so your code was not run (not your fault; your instructor has "
     "been told): landlock; seccomp"),
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
