"""Checks of `dtypes_and_devices` ("Tensors": dtype and device; "Common pitfalls": mixing
dtypes; companion: "Devices: CPU, CUDA, MPS").

Oracles: the reference on the same arrays and batches (in a public check's twin run, fresh
arrays and a fresh batch of the same shapes, dtypes and ranges, and the backends' scenarios
in another order). A CPU-only machine cannot grow a GPU, so a driver makes torch *say* that
CUDA and MPS are (or are not) available inside the worker, and the reference is asked the
same way here. Moving a batch is observed on the "meta" device, which every torch build
has: a tensor moved there keeps its shape and dtype but has no data, so it is described in
the worker instead of sent back. The worker also tells whether move_batch changed the
caller's batch, which the grader cannot see: it only ever gets copies.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import replace
from types import ModuleType
from typing import Any

import numpy as np
import torch

from graders.kit import (Mistake, Returned, Student, Suspect, checks_for, describe, exercise, expect_tensor, expected,
                         fail, twin, twin_generator, twin_random)
from graders.lesson01.dtypes_and_devices.mistakes import (BUILT_NOT_AVAILABLE, CHANGED_BATCH, CONTAINERS_ENTERED,
                                                          DEVICES, DEVICE_AT_IMPORT,
                                                          DEVICE_NAME, DTYPE_FROM_A_LIST, FLOAT64_KEPT, FLOAT_LABELS,
                                                          INT32_LABELS, INTEGER_FEATURES, NON_TENSORS_DROPPED, PITFALLS,
                                                          SHAPE_FROM_A_LIST, TENSORS, WRONG_BACKEND_ORDER)
from graders.lesson01.dtypes_and_devices.drivers import (MISSING, chosen_device, device_when_imported, holds_tensors,
                                                moved_layout, slot_text, tensor_slot)

EXERCISE = exercise("lesson01", "dtypes_and_devices")
check = checks_for("lesson01", EXERCISE.slug)


FEATURE_ARRAYS = {  # the lesson's NumPy round trip, and its 2×3 example tensor as an array
    "a = np.array([0.5, 1.5, 2.5])": lambda: np.array([0.5, 1.5, 2.5]),
    "a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])": lambda: np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),
    "a = np.arange(6) (whole numbers, int64)": lambda: np.arange(6),  # the lesson's torch.arange(6), from NumPy
}
LABEL_ARRAYS = {
    "a = np.array([0, 2, 1, 1, 0])": lambda: np.array([0, 2, 1, 1, 0]),
    "a = np.array([1.0, 0.0, 2.0]) (labels read from a text file)": lambda: np.array([1.0, 0.0, 2.0]),
}
SCENARIOS = ((True, True), (True, False), (False, True), (False, False))  # (CUDA, MPS) available?
# (backends at a fresh import of the student's file, backends when its pick_device is then called): a device
# decided at import follows the first, one asked for at call time the second.
IMPORT_PROBES = (((True, False), (False, True)), ((False, True), (True, False)))
LESSON_BATCH = ('batch = {"features": torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), '
                '"labels": torch.tensor([0, 2]), "names": ["first", "second"]}')


def feature_arrays() -> dict[str, np.ndarray]:
    """The lesson's arrays by how messages show them; in a public check's twin run, fresh arrays of
    the same shapes, dtypes and ranges."""
    if not twin():
        return {text: make() for text, make in FEATURE_ARRAYS.items()}
    generator = twin_generator()
    # Two decimals, so that messages can show each array exactly as np.array would make it.
    arrays = [np.round(torch.rand(shape, generator=generator, dtype=torch.float64).numpy() * (high - low) + low, 2)
              for shape, low, high in (((3,), 0.5, 2.5), ((2, 3), 1.0, 6.0))]
    arrays.append(torch.randint(0, 10, (6,), generator=generator).numpy())
    return {_array_text(a): a for a in arrays}


def label_arrays() -> dict[str, np.ndarray]:
    """The lesson's labels; in a twin run, fresh class indices in [0, 2] of the same sizes, as
    int64 and as whole-number float64 (labels read from a text file)."""
    if not twin():
        return {text: make() for text, make in LABEL_ARRAYS.items()}
    generator = twin_generator()
    ints = torch.randint(0, 3, (5,), generator=generator).numpy()
    floats = torch.randint(0, 3, (3,), generator=generator).double().numpy()
    return {_array_text(ints): ints, f"{_array_text(floats)} (labels read from a text file)": floats}


def _array_text(a: np.ndarray) -> str:
    return f"a = np.array({a.tolist()})"


def scenarios() -> tuple[tuple[bool, bool], ...]:
    """The four (CUDA, MPS) scenarios; in a twin run, in another order. pick_device takes no
    input, but the worker keeps the module between calls: the order stops answers by counting."""
    if not twin():
        return SCENARIOS
    return twin_random().choice([order for order in itertools.permutations(SCENARIOS) if order != SCENARIOS])


def lesson_batch() -> dict[str, Any]:
    """The lesson's batch; in a twin run, a fresh one of the same kind: 2×3 float32 features in
    [1, 6), two int64 labels in [0, 2] and two names."""
    if not twin():
        return {"features": torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]), "labels": torch.tensor([0, 2]),
                "names": ["first", "second"]}
    generator, draw = twin_generator(), twin_random()
    return {"features": torch.rand(2, 3, generator=generator) * 5 + 1,
            "labels": torch.randint(0, 3, (2,), generator=generator),
            "names": [f"sample {draw.randrange(1000)}" for _ in range(2)]}


def batch_text(batch: dict[str, Any]) -> str:
    if not twin():
        return LESSON_BATCH
    return (f'batch = {{"features": a fresh 2×3 float32 tensor in [1, 6), "labels": '
            f'torch.tensor({batch["labels"].tolist()}), "names": {json.dumps(batch["names"])}}}')


@expected
def kept_dtype(a: np.ndarray) -> torch.Tensor:
    """What torch.from_numpy alone gives: the array's own dtype."""
    return torch.from_numpy(a.copy())


@expected
def through_a_list(a: np.ndarray) -> torch.Tensor:
    """torch.tensor of a.tolist() with no dtype: the list's default, float32 or int64, whatever the array was."""
    return torch.tensor(a.tolist())


def list_suspects(student: Student, function: str, a: np.ndarray) -> list[Suspect]:
    """The list's default dtype (for an empty array, its lost shape), named only where the function's code (as the grader reads it) goes through
    .tolist(): the same tensor also comes from other slips (an integer array left integer, float labels)."""
    value = through_a_list(a)  # asked for either way, so that a recording from the reference holds it
    # An empty array's list is [] whatever the array's dtype and shape: what it loses is the shape.
    mistake = SHAPE_FROM_A_LIST if a.size == 0 else DTYPE_FROM_A_LIST
    return [Suspect(mistake, value)] if student.evidence.shows(function, ("tolist",)) else []


@expected
def float_labels(a: np.ndarray) -> list[torch.Tensor]:
    """Labels left as floating point, float32 or float64."""
    return [torch.from_numpy(a.copy()).float(), torch.from_numpy(a.copy()).double()]


@expected
def int32_labels(a: np.ndarray) -> torch.Tensor:
    """Labels cast with .int(): the right values, as int32."""
    return torch.from_numpy(a.copy()).int()


@expected
def reference_devices(reference: ModuleType, scenarios: tuple) -> list[torch.device]:
    return [chosen_device(reference, cuda, mps) for cuda, mps in scenarios]


@expected
def mps_first_devices(scenarios: tuple) -> list[str]:
    return ["mps" if mps else "cuda" if cuda else "cpu" for cuda, mps in scenarios]


def decided_at_import(student: Student, at_import: list[torch.device]) -> bool:
    """Whether each fresh import of the student's file gives the device of the backends torch reported
    at that import (`at_import`, the reference's choice for them), not of those at the call."""
    for (imported, called), device in zip(IMPORT_PROBES, at_import):
        returned = student.run(device_when_imported, imported, called, runs="pick_device", allow_raise=True,
                               shown_as=f"pick_device() after an import with {_scenario(*imported)}")
        if returned.error is not None or type(returned.value) is not torch.device or returned.value != device:
            return False
    return True


def _scenario(cuda: bool, mps: bool) -> str:
    return f"CUDA {'available' if cuda else 'not available'} and MPS {'available' if mps else 'not available'}"


def _run(student: Student, driver: Any, function: str, *args: Any, shown_as: str) -> Returned:
    __tracebackhide__ = True
    return student.run_defined(driver, function, *args, shown_as=shown_as, missing=MISSING)


def _fail_named(returned: Returned, summary: str, mistake: Mistake, got: str, want: str) -> None:
    __tracebackhide__ = True
    fail(summary, call=returned.call, got=got, expected=want, mistake=mistake)


def expect_features(returned: Returned, reference: ModuleType, a: np.ndarray, through_list: list[Suspect]) -> None:
    __tracebackhide__ = True
    suspects = through_list + ([Suspect(FLOAT64_KEPT, kept_dtype(a))] if a.dtype == np.float64 else
                               [Suspect(INTEGER_FEATURES, kept_dtype(a))] if np.issubdtype(a.dtype, np.integer) else [])
    expect_tensor(returned, reference.to_features(a), rtol=0, atol=EXERCISE.tolerance("values"),
                  requires_grad=None, suspects=suspects, section=PITFALLS,
                  hint="Convert, then cast to float32: torch.from_numpy(a).float().")


def expect_labels(returned: Returned, reference: ModuleType, a: np.ndarray, through_list: list[Suspect]) -> None:
    __tracebackhide__ = True
    suspects = through_list + [Suspect(FLOAT_LABELS, wrong) for wrong in float_labels(a)] + [
        Suspect(INT32_LABELS, int32_labels(a))]
    expect_tensor(returned, reference.to_labels(a), rtol=0, atol=EXERCISE.tolerance("values"),
                  requires_grad=None, suspects=suspects, section=TENSORS,
                  hint="Convert, then cast to int64: torch.from_numpy(a).long().")


def expect_batch(returned: Returned, expected_batch: dict) -> None:
    """The moved batch has the reference's keys, tensors (dtype, shape, values) and other values."""
    __tracebackhide__ = True
    got = returned.value
    if type(got) is not dict:
        fail("move_batch must return a dict.", call=returned.call, got=describe(got),
             hint="Build a new dict: {key: ... for key, value in batch.items()}.", section=DEVICES)
    _expect_keys(returned, set(got), expected_batch)
    for key, want in expected_batch.items():
        if type(want) is torch.Tensor:
            expect_tensor(replace(returned, value=got[key]), want, rtol=0, atol=EXERCISE.tolerance("values"),
                          requires_grad=None, what=f"batch[{key!r}]", section=DEVICES,
                          hint="Move each tensor with value.to(device): it keeps the dtype, the shape and the values.")
        elif holds_tensors(want):
            continue  # a container of tensors is judged on the meta call, by whether it is the caller's own object
        elif not (type(got[key]) is type(want) and got[key] == want):
            fail(f"move_batch changed batch[{key!r}], which is not a tensor.", call=returned.call,
                 got=describe(got[key]), expected=describe(want),
                 hint="Keep every value that is not a tensor as it is.", section=DEVICES)


def expect_layout(returned: Returned, expected_batch: dict, device: str) -> None:
    """Each tensor of the batch went to `device`, with its dtype and shape."""
    __tracebackhide__ = True
    got = returned.value
    if type(got) is str:
        fail(f"move_batch must return a dict, not {got}.", call=returned.call,
             hint="Build a new dict: {key: ... for key, value in batch.items()}.", section=DEVICES)
    _expect_keys(returned, set(got), expected_batch)
    for key, want in expected_batch.items():
        if type(want) is not torch.Tensor:
            continue  # values that are not tensors are compared on the CPU call, where they come back whole
        slot, target = got[key], tensor_slot(want, device)
        if type(slot) is not tuple or slot[0] != "tensor":
            fail(f"move_batch: batch[{key!r}] is no longer a tensor.", call=returned.call,
                 got=describe(slot[1] if type(slot) is tuple else slot), expected=f"a tensor on {device}",
                 hint="Return value.to(device) for each tensor.", section=DEVICES)
        if slot != target:
            moved = slot[1] != target[1]
            summary = (f"move_batch left batch[{key!r}] on {slot[1]} instead of moving it to {device}." if moved
                       else f"move_batch changed the dtype or shape of batch[{key!r}].")
            fail(summary,
                 call=returned.call, got=slot_text(slot), expected=slot_text(target),
                 meaning="All inputs to an operation must share a device, so every tensor of the batch "
                         "has to go where the model is." if moved else "",
                 hint="Use value.to(device) for each tensor, with the device you were given: it keeps "
                      "the dtype and the shape.", section=DEVICES)


def expect_batch_kept(returned: Returned) -> None:
    """move_batch built a new dict and left the caller's batch as it was (the docstring's "A new dict")."""
    __tracebackhide__ = True
    same, changes = returned.value["same_dict"], returned.value["changes"]
    if not same and not changes:
        return
    summary = ("move_batch moved every tensor, but it changed the batch it was given"
               + (" and returned that same dict." if same else "."))
    fail(summary, call=returned.call, got="the dict it was given" if same else "a new dict",
         changed="batch after the call: " + ("; ".join(changes) or "the same dict, returned"),
         expected="a new dict holding the moved tensors, and batch as it was", mistake=CHANGED_BATCH)


def _expect_keys(returned: Returned, got: set, expected_batch: dict) -> None:
    __tracebackhide__ = True
    want = set(expected_batch)
    if got == want:
        return
    tensor_keys = {key for key, value in expected_batch.items() if type(value) is torch.Tensor}
    if got == tensor_keys:  # a comprehension that filters by type
        _fail_named(returned, "move_batch must return the batch's keys, no more and no fewer.", NON_TENSORS_DROPPED,
                    f"keys {sorted(map(str, got))}", f"keys {sorted(map(str, want))}")
    fail("move_batch must return the batch's keys, no more and no fewer.", call=returned.call,
         got=f"keys {sorted(map(str, got))}", expected=f"keys {sorted(map(str, want))}",
         hint="Keep every key, the ones whose values are not tensors too.", section=DEVICES)


def expect_moves(student: Student, reference: ModuleType, batch: dict, text: str) -> None:
    """move_batch to the CPU (values come back) and to meta, as a string and as a torch.device."""
    __tracebackhide__ = True
    expected_batch = reference.move_batch(batch, "cpu")
    expect_batch(student.call("move_batch", batch, "cpu", shown_as=f'move_batch(batch, "cpu") with {text}'),
                 expected_batch)
    for device, shown in (("meta", '"meta"'), (torch.device("meta"), 'torch.device("meta")')):
        returned = _run(student, moved_layout, "move_batch", batch, device,
                        shown_as=f"move_batch(batch, {shown}) with {text}")
        expect_layout(replace(returned, value=returned.value["moved"]), expected_batch, "meta")
        expect_batch_kept(returned)
        entered = returned.value["entered"]
        if entered:
            fail(f"move_batch made a new batch[{entered[0]!r}], which is not a tensor, with its tensors moved.",
                 call=returned.call, got=f"a new {type(batch[entered[0]]).__name__} whose tensors are on meta",
                 expected=f"batch[{entered[0]!r}] itself, as the caller gave it", mistake=CONTAINERS_ENTERED)


# ---------------------------------------------------------------- public checks

@check
def test_features_are_float32(student: Student, reference: ModuleType) -> None:
    for text, a in feature_arrays().items():
        expect_features(student.call("to_features", a, shown_as=f"to_features(a) with {text}"), reference, a,
                        list_suspects(student, "to_features", a))


@check
def test_labels_are_int64(student: Student, reference: ModuleType) -> None:
    for text, a in label_arrays().items():
        expect_labels(student.call("to_labels", a, shown_as=f"to_labels(a) with {text}"), reference, a,
                      list_suspects(student, "to_labels", a))


@check
def test_pick_device_prefers_cuda_then_mps(student: Student, reference: ModuleType) -> None:
    cases = scenarios()
    wrong_order = mps_first_devices(cases)  # asked up front, so that it is recorded with the rest
    at_import = reference_devices(reference, tuple(imported for imported, _ in IMPORT_PROBES))  # recorded too
    answers = []
    for (cuda, mps), want in zip(cases, reference_devices(reference, cases)):
        returned = _run(student, chosen_device, "pick_device", cuda, mps,
                        shown_as=f"pick_device() with {_scenario(cuda, mps)}")
        if type(returned.value) is not torch.device:
            if type(returned.value) is str and returned.value == want.type:
                _fail_named(returned, "pick_device must return a torch.device.", DEVICE_NAME,
                            describe(returned.value), f"torch.device({want.type!r})")
            fail("pick_device must return a torch.device.", call=returned.call, got=describe(returned.value),
                 expected=f"torch.device({want.type!r})",
                 hint='Wrap the name in torch.device: torch.device("cuda"), torch.device("mps") or '
                      'torch.device("cpu").', section=DEVICES)
        answers.append((returned, returned.value, want))
    wrong = [(returned, got, want) for returned, got, want in answers if got.type != want.type]
    if not wrong:
        expect_built_is_not_available(student)
        return
    returned, got, want = wrong[0]
    summary = f"pick_device() chose {got.type} with {_scenario(*cases[answers.index(wrong[0])])}; expected {want.type}."
    if [got.type for _, got, _ in answers] == wrong_order:
        _fail_named(returned, summary, WRONG_BACKEND_ORDER, str(got), str(want))
    # One device for all four scenarios: fixed before the call. Named only if an import fixes it, not a constant.
    if len({got for _, got, _ in answers}) == 1 and decided_at_import(student, at_import):
        _fail_named(returned, summary, DEVICE_AT_IMPORT, str(got), str(want))
    fail(summary, call=returned.call, got=str(got), expected=str(want),
         meaning="The device must follow what torch says is available, asked when pick_device is called.",
         hint="cuda if torch.cuda.is_available(), else mps if torch.backends.mps.is_available(), else cpu.",
         section=DEVICES)


BUILT_ONLY = ("CUDA and MPS built into torch but neither available (a CUDA build on a machine with no NVIDIA GPU, "
              "a Mac whose GPU cannot be used)")


def expect_built_is_not_available(student: Student) -> None:
    """pick_device asks whether a backend is available, as its docstring says, not whether torch was built with it."""
    __tracebackhide__ = True
    returned = _run(student, chosen_device, "pick_device", False, False, True, shown_as=f"pick_device() with {BUILT_ONLY}")
    got = returned.value
    if type(got) is torch.device and got.type == "cpu":
        return
    chosen = got.type if type(got) is torch.device else describe(got)
    summary = f"pick_device() chose {chosen} with {BUILT_ONLY}; expected cpu."
    if type(got) is torch.device and student.evidence.shows("pick_device", ("is_built",)):
        _fail_named(returned, summary, BUILT_NOT_AVAILABLE, str(got), "cpu")
    fail(summary, call=returned.call, got=describe(got), expected=str(torch.device("cpu")),
         meaning="A backend torch was built with is not always one this machine can use: only an available one "
                 "may be chosen.",
         hint="cuda if torch.cuda.is_available(), else mps if torch.backends.mps.is_available(), else cpu.",
         section=DEVICES)


@check
def test_move_batch_moves_every_tensor(student: Student, reference: ModuleType) -> None:
    batch = lesson_batch()
    expect_moves(student, reference, batch, batch_text(batch))


# ---------------------------------------------------------------- hidden checks

@check
def test_to_features_and_to_labels_on_fresh_arrays(student: Student, reference: ModuleType) -> None:
    rng = np.random.default_rng(EXERCISE.seed("fresh_arrays"))
    features = {
        "a = a 5×4 random float64 array": rng.normal(size=(5, 4)),
        "a = 7 random float32 numbers": rng.random(7).astype(np.float32),
        "a = a 3×2 int64 array": rng.integers(-9, 10, size=(3, 2)),
        # "Of any shape": an empty one too, as a file of a header and no rows gives. Its shape has no values to
        # carry it: numbers rebuilt from a.tolist() come back as shape (0,).
        "a = an empty 0×3 float64 array": np.zeros((0, 3)),
    }
    labels = {
        "a = 8 int32 labels": rng.integers(0, 5, size=8).astype(np.int32),
        "a = 6 float64 labels": rng.integers(0, 3, size=6).astype(np.float64),
        "a = a 2×3 int64 array of labels": rng.integers(0, 4, size=(2, 3)),
        # A column, as np.loadtxt(..., ndmin=2) reads a file of one label per line: its size-1 dimension stays.
        "a = a 4×1 column of int64 labels": rng.integers(0, 3, size=(4, 1)),
    }
    for text, a in features.items():
        expect_features(student.call("to_features", a, shown_as=f"to_features(a) with {text}"), reference, a,
                        list_suspects(student, "to_features", a))
    for text, a in labels.items():
        expect_labels(student.call("to_labels", a, shown_as=f"to_labels(a) with {text}"), reference, a,
                      list_suspects(student, "to_labels", a))


@check
def test_move_batch_on_fresh_batches(student: Student, reference: ModuleType) -> None:
    generator = torch.Generator().manual_seed(EXERCISE.seed("fresh_batches"))
    batch = {
        "images": torch.randn(3, 1, 4, 4, generator=generator),
        "targets": torch.randint(0, 10, (3,), generator=generator),
        "weights": torch.rand(3, generator=generator, dtype=torch.float64),
        "mask": torch.rand(3, generator=generator) > 0.5,
        "epoch": 7,
        "split": "train",
        "note": None,
        # Containers too: "every value that is not a tensor is kept as it is", whatever its type.
        "size": (4, 4),
        "source": {"name": "synthetic", "version": 2},
        # A list that holds tensors is a value that is not a tensor too: kept as it is, its tensors with it.
        "crops": [torch.randn(2, 2, generator=generator), torch.randn(2, 2, generator=generator)],
    }
    text = ("batch = {images: 3×1×4×4 float32, targets: int64, weights: float64, mask: bool, "
            'epoch: 7, split: "train", note: None, size: (4, 4), source: {"name": "synthetic", "version": 2}, '
            "crops: a list of two 2×2 float32 tensors}")
    expect_moves(student, reference, batch, text)
