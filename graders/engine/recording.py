"""Expected values as data: record them from the reference once, replay them where the
reference may not go.

Students' copies of the public checks (the nbgrader release) must not contain reference
code. So every expected value a check needs comes either from a direct call of a
reference function or from a function of the checks module marked `@expected`
(autograd of the reference, a mistake's wrong output, a least-squares fit, ...).
In "record" mode both are computed and stored, keyed by the function and its
arguments; in "replay" mode they are read back and the reference is never touched. The
batch grader's "cache" mode is live grading that reuses the values a first run stored
(the reference graded once per batch) and computes the others.
"""

from __future__ import annotations

import functools
import json
import os
from collections import OrderedDict
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, TypeVar

from graders.engine.fingerprint import digest
from graders.sandbox import copy, pack, unpack

F = TypeVar("F", bound=Callable[..., Any])

LIVE, RECORD, REPLAY, CACHE = "live", "record", "replay", "cache"
RECENT_BYTES = 64 * 2**20  # cache mode: the diagnosis values a grading process keeps from one submission to the next
DECODED_SIZE = 3  # how many times its wire message a decoded value is counted as taking in memory
NOT_RECORDED = ("no recorded value for {name}: the expected values were recorded from another version of "
                "the checks; rebuild them (python -m graders nbgrader build)")


class Recording:
    """The store of expected values, and whether we compute, record or replay them."""

    def __init__(self) -> None:
        self.mode = LIVE
        self.values: dict[str, str] = {}
        self.depth = 0  # how many cached computations are running (cache mode)
        self.building = False  # cache mode without stored values: this run computes and stores them
        # Cache mode: values that are not the reference's stored ones (a mistake's wrong run, on the
        # course's inputs) but repeat from one student to the next, kept in memory, decoded, up to
        # RECENT_BYTES: key -> (what it is counted as, the value). Decoded, a list of numbers takes
        # about three times its wire message (measured), so that is what it counts.
        self.recent: OrderedDict[str, tuple[int, Any]] = OrderedDict()
        self.recent_bytes = 0
        self._kept_count = 0  # how many values the store held when keeping started (start_keeping)
        # Values already rebuilt from the store, by key: a batch's grading process looks up the same
        # few hundred for every student, and copying one costs a fraction of decoding it again.
        self.decoded: dict[str, Any] = {}

    def key(self, name: str, args: tuple, kwargs: dict) -> str:
        plain = [a for a in args if not isinstance(a, (ModuleType, _RecordedReference, _ReplayedReference))]
        return f"{name}:{digest([plain, kwargs])}"

    def through(self, name: str, compute: Callable[[], Any], args: tuple, kwargs: dict) -> Any:
        if self.mode == LIVE or (self.mode == CACHE and self.depth):
            # Inside a cached computation, a call is part of it (and may depend on state the
            # outer one set up, such as a patched backend): it is computed, never looked up.
            return compute()
        if self.mode == CACHE:
            return self._cached(name, compute, args, kwargs)
        key = self.key(name, args, kwargs)
        if self.mode == REPLAY:
            if key not in self.values:
                raise LookupError(NOT_RECORDED.format(name=name))
            return unpack(bytes.fromhex(self.values[key]))
        value = compute()
        self.values[key] = pack(value).hex()
        return value

    def _cached(self, name: str, compute: Callable[[], Any], args: tuple, kwargs: dict) -> Any:
        key = self.key(name, args, kwargs)
        if key in self.decoded:
            return copy(self.decoded[key])
        if key in self.values:
            self.decoded[key] = unpack(bytes.fromhex(self.values[key]))
            return copy(self.decoded[key])
        if key in self.recent:
            self.recent.move_to_end(key)
            return copy(self.recent[key][1])
        self.depth += 1
        try:
            value = compute()
        finally:
            self.depth -= 1
        if self.building:
            self.values[key] = pack(value).hex()
        else:  # a mistake's diagnosis: stored, it would grow the store with every student; kept, it repeats
            self._keep_recent(key, pack(value))
        return value

    def _keep_recent(self, key: str, packed: bytes) -> None:
        if len(packed) > RECENT_BYTES // 16:
            return  # one large value would push out many small ones that are more likely to repeat
        # Decoded once, as each later use would otherwise decode it: handed out as copies.
        self.recent[key] = (DECODED_SIZE * len(packed), unpack(packed))
        self.recent_bytes += DECODED_SIZE * len(packed)
        while self.recent_bytes > RECENT_BYTES:
            self.recent_bytes -= self.recent.popitem(last=False)[1][0]

    def load(self, path: Path) -> None:
        self.mode = REPLAY
        self._use(json.loads(path.read_text()))

    def start_recording(self) -> None:
        self.mode = RECORD
        self._use({})

    def start_caching(self, path: Path) -> bool:
        """Cache mode from the values stored at `path`; False when there are none yet (this
        run then computes them all, and `save` stores them for the next)."""
        stored = path.is_file()
        self.mode = CACHE
        self._use(json.loads(path.read_text()) if stored else {})
        self.building = not stored
        return stored

    def start_keeping(self, path: Path) -> None:
        """Cache mode that also adds every value it computes to the store (a student's kept values,
        graders/engine/kept_values.py); `grew` then tells whether there is anything new to save. A file
        that cannot be read counts as none."""
        try:
            values = json.loads(path.read_text())
        except (OSError, ValueError):
            values = {}
        self.mode, self.building = CACHE, True
        self._use(values if isinstance(values, dict) else {})
        self._kept_count = len(self.values)

    def _use(self, values: dict[str, str]) -> None:
        # The values rebuilt so far stay only while the store is the same: a batch's grading process
        # starts each submission's session from the one file, a test may start from another.
        if values != self.values:
            self.decoded = {}
        self.values = values

    @property
    def grew(self) -> bool:
        return len(self.values) > self._kept_count

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        # A name of this process's own: two runs saving at once must not write into one partial file.
        partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
        partial.write_text(json.dumps(self.values, sort_keys=True))
        partial.replace(path)


RECORDING = Recording()


def expected(function: F) -> F:
    """Mark a checks-module function that computes expected values from the reference or
    from a mistake's formula. It must take plain data (and optionally the reference
    module) and return plain data (tensors, numbers, lists, tuples, dicts)."""

    name = f"{function.__module__}:{function.__qualname__}"

    @functools.wraps(function)
    def through_recording(*args: Any, **kwargs: Any) -> Any:
        return RECORDING.through(name, lambda: function(*args, **kwargs), args, kwargs)

    return through_recording  # type: ignore[return-value]


class _RecordedReference:
    """The reference module, with each function call going through the recording."""

    def __init__(self, module: ModuleType, slug: str) -> None:
        self._module = module
        self._slug = slug

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._module, name)
        if not callable(target):
            return target
        key_name = f"reference:{self._slug}:{name}"
        return lambda *a, **k: RECORDING.through(key_name, lambda: target(*a, **k), a, k)


class _ReplayedReference:
    """Stands in for the reference where it is absent: only recorded calls answer."""

    def __init__(self, slug: str) -> None:
        self._slug = slug

    def __getattr__(self, name: str) -> Any:
        key_name = f"reference:{self._slug}:{name}"

        def replay(*args: Any, **kwargs: Any) -> Any:
            return RECORDING.through(key_name, _absent(name), args, kwargs)

        return replay


def _absent(name: str) -> Callable[[], Any]:
    def compute() -> Any:
        raise LookupError(NOT_RECORDED.format(name=name))

    return compute


def reference_for(slug: str, load: Callable[[], ModuleType]) -> Any:
    """What the `reference` fixture gives a check in the current mode."""
    if RECORDING.mode == REPLAY:
        return _ReplayedReference(slug)
    module = load()
    return module if RECORDING.mode == LIVE else _RecordedReference(module, slug)
