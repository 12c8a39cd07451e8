"""The batch grader's cache of expected values: the reference's are stored once; a mistake's
diagnosis is kept in memory from one submission to the next, within a bound."""

from __future__ import annotations

import torch

from graders.engine import recording
from graders.engine.recording import Recording


def _cached(store: Recording, name: str, value: object, calls: list[str], *args: object) -> object:
    def compute() -> object:
        calls.append(name)
        return value
    return store.through(name, compute, args, {})


def test_a_diagnosis_value_is_computed_once_per_process_and_never_stored(tmp_path) -> None:
    stored = tmp_path / "expected.json"
    stored.write_text("{}")
    store, calls = Recording(), []
    for _submission in range(3):  # a grading process starts a session (and caching) per submission
        store.start_caching(stored)
        got = _cached(store, "wrong_run", torch.arange(3.0), calls, torch.ones(2), 0.1)
        assert torch.equal(got, torch.arange(3.0))
    assert calls == ["wrong_run"]
    assert store.values == {}  # not in the stored values: those are the reference's only
    _cached(store, "wrong_run", torch.arange(3.0), calls, torch.ones(2), 0.2)  # other arguments: computed
    assert calls == ["wrong_run", "wrong_run"]


def test_the_values_kept_in_memory_stay_within_their_bound(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(recording, "RECENT_BYTES", 64 * 1024)
    stored = tmp_path / "expected.json"
    stored.write_text("{}")
    store, calls = Recording(), []
    store.start_caching(stored)
    for index in range(200):  # each a value of one submission only, e.g. computed from its answer
        _cached(store, "signature", torch.full((256,), float(index)), calls, index)
    assert store.recent_bytes <= 64 * 1024
    assert store.recent_bytes == sum(size for size, _ in store.recent.values())
    _cached(store, "signature", torch.zeros(256), calls, 199)  # the latest is still there
    assert len(calls) == 200


def test_arguments_that_cross_the_wire_differently_get_different_keys() -> None:
    # The key names an expected value by its arguments: two arguments may share it only when the
    # wire carries them as one message.
    arguments = [1, 1.0, True, "1", None, "None", (1,), [1], ((1,),), [[1]], (1, 2), (12,), ["a,", "b"], ["a", ",b"],
                 {"a": 1}, {"a": 1.0}, [((5, 4), (3,))], [((5, 4), [3])], -0.0, 0.0, float("nan"), float("inf"),
                 torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float64), torch.tensor([1]),
                 torch.tensor([1.0], requires_grad=True), torch.nn.Parameter(torch.tensor([1.0])),
                 torch.tensor([[1.0, 2.0]]), torch.tensor([1.0, 2.0]), torch.tensor([2.0, 1.0])]
    keys = [Recording().key("f", (argument,), {}) for argument in arguments]
    assert len(set(keys)) == len(arguments)
    pairs = [((5, 4), (3,)), ((1,), (2, 3))] * 200
    assert Recording().key("f", (pairs,), {}) == Recording().key("f", ([tuple(p) for p in pairs],), {})


def test_a_stored_value_is_decoded_once_and_handed_out_as_a_fresh_copy(tmp_path) -> None:
    stored = tmp_path / "expected.json"
    writer = Recording()
    writer.start_recording()
    writer.through("reference", lambda: [torch.arange(3.0), [1, 2]], (0.5,), {})
    writer.save(stored)
    store, calls = Recording(), []
    store.start_caching(stored)
    first = _cached(store, "reference", None, calls, 0.5)
    first[0].add_(10)
    first[1].append(3)
    second = _cached(store, "reference", None, calls, 0.5)
    assert calls == [] and len(store.decoded) == 1
    assert torch.equal(second[0], torch.arange(3.0)) and second[1] == [1, 2]
    store.start_caching(stored)  # the next submission's session, from the same file: still decoded
    assert len(store.decoded) == 1
    stored.write_text("{}")
    store.start_caching(stored)  # another store: nothing decoded from the last one is used
    assert store.decoded == {}


def test_a_tensor_is_keyed_by_what_the_wire_would_carry_whatever_its_layout() -> None:
    # Views with odd strides, an expanded scalar, a conjugate: keyed like the dense tensor they are.
    key = Recording().key
    assert key("f", (torch.arange(4.0).reshape(2, 2)[0:1, 1],), {}) == key("f", (torch.tensor([1.0]),), {})
    assert key("f", (torch.tensor(2.0).expand(3),), {}) == key("f", (torch.full((3,), 2.0),), {})
    assert key("f", (torch.arange(6.0).reshape(2, 3).T,), {}) == key("f", (torch.tensor([[0.0, 3], [1, 4], [2, 5]]),), {})
    conjugate = torch.tensor([1 + 2j]).conj()
    assert key("f", (conjugate,), {}) == key("f", (torch.tensor([1 - 2j]),), {})
    nested: list = []
    for _ in range(100):
        nested = [nested]
    assert key("f", (nested,), {})  # as deep as the wire cuts off: a key all the same
