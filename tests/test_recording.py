"""The batch grader's cache of expected values: the reference's are stored once; a mistake's
diagnosis is kept in memory from one submission to the next, within a bound."""

from __future__ import annotations

import torch

from graders import recording
from graders.recording import Recording


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
    assert store.recent_bytes == sum(len(v) for v in store.recent.values())
    _cached(store, "signature", torch.zeros(256), calls, 199)  # the latest is still there
    assert len(calls) == 200
