"""The dtypes_and_devices checks rest on facts about torch that a CPU-only machine can
still show: the backends can be made to look available and are put back afterwards, the
error the float64 mistake quotes is the one torch raises, and each mistake is named from
recorded expected values as well as from the live reference."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
import torch

import course_config

from conftest import ROOT, mistake_submissions
from mistake_catalogue import submission
from graders.lesson01.dtypes_and_devices import drivers
from graders.engine.fresh import twin_run
from graders.lesson01.dtypes_and_devices import checks

SLUG = "dtypes_and_devices"
REFERENCE = ROOT / "reference" / "lesson01" / f"{SLUG}.py"
# The mistakes a public check shows: one that only a hidden check's inputs bring out (an empty array) has no public
# failure to replay.
_HIDDEN = {c.id for e in course_config.LESSON_01.exercises if e.slug == SLUG for c in e.checks if c.hidden}
PUBLIC_MISTAKES = [s for s in mistake_submissions() if s.slug == SLUG and s.fails - _HIDDEN]


def test_pretending_a_backend_is_seen_by_every_spelling_and_undone_afterwards() -> None:
    originals = (torch.cuda.is_available, torch.backends.mps.is_available, torch.accelerator.current_accelerator)
    module = type(torch)("student")  # as if it ran `from torch.cuda import is_available as cuda_ok`
    module.cuda_ok, module.mps_ok = torch.cuda.is_available, torch.backends.mps.is_available
    with drivers._backends(True, False, module):
        assert torch.cuda.is_available() and module.cuda_ok() and torch.cuda.device_count() == 1
        assert not torch.backends.mps.is_available() and not module.mps_ok()
        assert torch.accelerator.current_accelerator() == torch.device("cuda")
    assert (torch.cuda.is_available, torch.backends.mps.is_available,
            torch.accelerator.current_accelerator) == originals
    assert module.cuda_ok is originals[0] and module.mps_ok is originals[1]


def test_the_reference_prefers_cuda_then_mps_and_the_wrong_order_differs_only_when_both_exist() -> None:
    chosen = [d.type for d in checks.reference_devices(_reference_module(), checks.SCENARIOS)]
    assert chosen == ["cuda", "cuda", "mps", "cpu"]
    wrong = checks.mps_first_devices(checks.SCENARIOS)
    assert [c != w for c, w in zip(chosen, wrong)] == [True, False, False, False]


def test_a_float64_batch_against_float32_weights_raises_the_error_the_mistake_quotes() -> None:
    batch = torch.from_numpy(np.array([[1.0, 2.0, 3.0]]))
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype"):
        torch.nn.Linear(3, 2)(batch)
    assert "mat1 and mat2 must have the same dtype" in checks.FLOAT64_KEPT.explanation


def test_moving_to_meta_keeps_dtype_and_shape_but_not_the_device() -> None:
    seen = checks.moved_layout(_reference_module(), checks.lesson_batch(), "meta")
    assert seen["moved"]["labels"] == ("tensor", "meta", torch.int64, (2,))
    assert seen["moved"]["names"] == ("value", ["first", "second"])
    assert not seen["same_dict"] and seen["changes"] == []


def test_a_move_batch_that_writes_into_its_argument_is_seen_changing_the_callers_batch() -> None:
    module = type(torch)("student")
    module.move_batch = lambda batch, device: batch.update(labels=batch["labels"].to(device)) or batch
    seen = checks.moved_layout(module, checks.lesson_batch(), "meta")
    assert seen["same_dict"]
    assert seen["changes"] == ["batch['labels'] is now an int64 tensor of shape (2,) on meta"]


def test_int32_labels_stop_a_classification_loss_as_the_mistake_says() -> None:
    with pytest.raises(RuntimeError, match="Long"):
        torch.nn.functional.cross_entropy(torch.zeros(2, 3), torch.tensor([0, 2], dtype=torch.int32))
    assert "asks for Long" in checks.INT32_LABELS.explanation


def test_a_twin_run_gives_fresh_arrays_and_batches_of_the_lessons_kind_and_shows_them() -> None:
    lesson = [*checks.feature_arrays().values(), *checks.label_arrays().values()]
    batch = checks.lesson_batch()
    with twin_run(1):
        fresh = {**checks.feature_arrays(), **checks.label_arrays()}
        fresh_batch, order = checks.lesson_batch(), checks.scenarios()
        batch_text = checks.batch_text(fresh_batch)
    for (text, a), published in zip(fresh.items(), lesson):
        assert a.dtype == published.dtype and a.shape == published.shape and not np.array_equal(a, published)
        assert np.array_equal(eval(text.removeprefix("a = ").removesuffix(" (labels read from a text file)")), a)
    labels = np.concatenate(list(fresh.values())[len(checks.FEATURE_ARRAYS):])
    assert set(labels) <= {0, 1, 2}  # class indices in the lesson's range, whole numbers in the float array too
    assert fresh_batch.keys() == batch.keys() and fresh_batch["names"] != batch["names"]
    for key in ("features", "labels"):
        assert fresh_batch[key].dtype == batch[key].dtype and fresh_batch[key].shape == batch[key].shape
    assert (1 <= fresh_batch["features"]).all() and (fresh_batch["features"] < 6).all()
    assert str(fresh_batch["labels"].tolist()) in batch_text and fresh_batch["names"][0] in batch_text
    assert sorted(order) == sorted(checks.SCENARIOS) and order != checks.SCENARIOS


AT_IMPORT = """import torch

DEVICE = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")


def pick_device():
    return DEVICE
"""
IMPORTED_BY_NAME = """import torch
from torch.cuda import is_available as cuda_ok


def pick_device():
    return torch.device("cuda") if cuda_ok() else torch.device("cpu")
"""


@pytest.mark.parametrize("source, follows", [(AT_IMPORT, "import"), (IMPORTED_BY_NAME, "call")])
def test_a_fresh_import_tells_a_device_fixed_at_import_from_one_asked_for_at_call_time(tmp_path: Path, source: str,
                                                                                       follows: str) -> None:
    path = tmp_path / "student.py"
    path.write_text(source)
    module = type(torch)("student")
    module.__file__ = str(path)
    original = torch.cuda.is_available
    chosen = checks.device_when_imported(module, (True, False), (False, False))
    assert chosen == (torch.device("cuda") if follows == "import" else torch.device("cpu"))
    assert torch.cuda.is_available is original


def test_a_pick_device_that_always_says_cpu_is_not_called_chosen_at_import(grade) -> None:
    # The same answer in every scenario, as a device chosen at import gives, but no import chose it.
    source = REFERENCE.read_text() + '\n\ndef pick_device() -> torch.device:\n    return torch.device("cpu")\n'
    graded = grade({SLUG: source}, "-k", "pick_device")
    check = graded.checks(SLUG)["pick_device_prefers_cuda_then_mps"]
    assert not check["passed"] and check["mistake"] is None, check["message"]


@pytest.mark.parametrize("submission", PUBLIC_MISTAKES, ids=[s.name for s in PUBLIC_MISTAKES])
def test_each_mistake_is_named_from_recorded_expected_values_too(grade, tmp_path, submission) -> None:
    recorded = tmp_path / "expected.json"
    assert grade({SLUG: REFERENCE}, "--record-expected", str(recorded)).exit_code == 0
    graded = grade({SLUG: submission.text()}, "--replay-expected", str(recorded), "-k", "not hidden")
    checks_run = graded.checks(SLUG)
    public_failures = {c for c in submission.named if not checks_run.get(c, {}).get("hidden", True)}
    assert public_failures, "every mistake costs at least one public check"
    for check_id in public_failures:
        assert checks_run[check_id]["mistake"] == submission.mistake, checks_run[check_id]["message"]


def _reference_module():
    spec = importlib.util.spec_from_file_location("reference_dtypes_and_devices", REFERENCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_backend_can_be_pretended_built_but_not_available() -> None:
    with drivers._backends(False, False, built=True):
        assert torch.backends.mps.is_built() and torch.backends.cuda.is_built()
        assert not torch.backends.mps.is_available() and not torch.cuda.is_available()
    assert checks.chosen_device(_reference_module(), False, False, True) == torch.device("cpu")


def test_torch_tensor_with_a_dtype_and_a_loop_over_the_batch_score_full_marks(grade) -> None:
    graded = grade({SLUG: submission(SLUG, "correct_torch_tensor_with_dtype")}, "-k", SLUG)
    assert graded.failed(SLUG) == set(), graded.output


def test_a_list_is_named_only_where_the_code_goes_through_one(grade) -> None:
    """An int64 tensor from an integer array is the list's default only if the code calls .tolist()."""
    graded = grade({SLUG: submission(SLUG, "integer_left_integer")}, "-k", SLUG)
    assert graded.checks(SLUG)["features_are_float32"]["mistake"] == "integer array left integer", graded.output


def test_features_asked_for_in_float64_are_told_the_dtype_fact_not_a_float64_kept_from_numpy(grade) -> None:
    """The code says dtype=torch.float64 itself: "kept from the NumPy array" and its hint would name a cause it does
    not have, so the result's dtype is told as the fact it is (registration.py's net, the check's `otherwise`)."""
    source = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text().replace(
        "return torch.from_numpy(a).float()", "return torch.as_tensor(a, dtype=torch.float64)")
    check = grade({SLUG: source}, "-k", SLUG).checks(SLUG)["features_are_float32"]
    assert not check["passed"] and check["mistake"] == "result in another dtype", check["message"]
    assert "float64 where float32 belongs" in check["message"] and "kept from the NumPy" not in check["message"]
    assert submission(SLUG, "float64_kept")  # the catalogued slip, which keeps its own name (tests/test_mistakes.py)


def test_labels_that_lose_a_size_one_dimension_lose_the_hidden_arrays(grade) -> None:
    # A squeeze keeps every label of the lesson's 1-D arrays; a column of labels, as np.loadtxt(..., ndmin=2)
    # reads one, keeps its shape only without it.
    source = (ROOT / "reference" / "lesson01" / "dtypes_and_devices.py").read_text()
    line = "    return torch.from_numpy(a).long()\n"
    assert source.count(line) == 1
    graded = grade({"dtypes_and_devices": source.replace(line, "    return torch.from_numpy(a).long().squeeze()\n")},
                   "-k", "dtypes_and_devices")
    assert graded.failed("dtypes_and_devices") == {"to_features_and_to_labels_on_fresh_arrays"}, graded.output


def test_a_move_batch_that_lists_the_types_it_keeps_fails_on_a_tuple_or_a_dict(grade) -> None:
    # The docstring keeps every value that is not a tensor as it is: a list of plain types to keep, and .to for the
    # rest, passes the lesson's batch and must lose the hidden check's points, named for what it does.
    right = "    return {key: value.to(device) if isinstance(value, Tensor) else value for key, value in batch.items()}"
    listed = ("    plain = (str, int, float, bool, list, type(None))\n"
              "    return {key: value if isinstance(value, plain) else value.to(device) for key, value in batch.items()}")
    source = REFERENCE.read_text()
    assert right in source
    graded = grade({SLUG: source.replace(right, listed)}, "-k", "move_batch")
    checks_run = graded.checks(SLUG)
    assert checks_run["move_batch_moves_every_tensor"]["passed"], graded.output
    hidden = checks_run["move_batch_on_fresh_batches"]
    assert not hidden["passed"] and hidden["mistake"] == "moved a value that is not a tensor", graded.output

