"""One worker grades all of a submission's exercises (graders/sandbox/shared.py), and what one module does costs only its own exercise."""

from __future__ import annotations

from graders.sandbox.zygote import ZYGOTE

from conftest import ROOT

LATER = ("views", "neuron_chain_rule", "linear_module", "sin_exp_derivative")  # graded after dtypes_and_devices


def _reference(slug: str) -> str:
    return (ROOT / "reference" / "lesson01" / f"{slug}.py").read_text()


def test_a_whole_submission_is_graded_by_one_worker(grade) -> None:
    before = ZYGOTE.count
    graded = grade(ROOT / "reference")
    assert graded.result["score"] == graded.result["max_score"]
    assert ZYGOTE.count - before == 1


def test_what_a_module_changes_at_import_is_undone_before_the_next_exercise(grade) -> None:
    meddling = _reference("dtypes_and_devices") + (
        "\nimport random\nimport numpy\n"
        "torch.set_default_dtype(torch.float64)\n"
        "torch.set_grad_enabled(False)\n"
        "torch.manual_seed(1234)\nnumpy.random.seed(1234)\nrandom.seed(1234)\n"
        "torch.Tensor.backward = lambda self, *args, **kwargs: None\n"
        "torch.nn.functional.mse_loss = lambda *args, **kwargs: torch.tensor(0.0)\n"
        "torch.zeros = torch.ones\n"
        "del torch.no_grad\n"
        "import os, signal, sys\n"
        "os.environ['OMP_NUM_THREADS'] = '8'\n"
        "sys.setrecursionlimit(60)\n"
        "signal.setitimer(signal.ITIMER_REAL, 0.3)\n")  # SIGALRM would end the worker during a later exercise
    files = {"dtypes_and_devices": meddling, **{slug: _reference(slug) for slug in LATER}}
    graded = grade(files)
    for slug in LATER:
        exercise = graded.exercise(slug)
        assert exercise["score"] == exercise["max_score"], (slug, graded.failed(slug))


def test_a_timeout_in_one_exercise_costs_only_that_exercises_checks(grade) -> None:
    looping = _reference("views").replace("def as_grid(", "def as_grid(*_, **__):\n    while True:\n        pass\n\n\n"
                                          "def _unused_as_grid(", 1)
    files = {"views": looping, **{slug: _reference(slug) for slug in LATER if slug != "views"}}
    before = ZYGOTE.count
    graded = grade(files, "--call-timeout", "2")
    assert graded.failed("views") == {"as_grid_is_a_view", "as_grid_and_flatten_on_fresh_tensors"}  # the checks that call as_grid
    for slug in files:
        if slug != "views":
            assert graded.exercise(slug)["score"] == graded.exercise(slug)["max_score"], slug
    assert ZYGOTE.count - before >= 2  # the looping worker was replaced, for views' later checks and the rest


def test_a_thread_left_running_by_one_module_makes_the_next_load_in_a_fresh_worker(grade) -> None:
    spinning = _reference("dtypes_and_devices") + (
        "\nimport threading\n\n\ndef _spin():\n    while True:\n        pass\n\n\n"
        "threading.Thread(target=_spin, daemon=True).start()\n")
    files = {"dtypes_and_devices": spinning, **{slug: _reference(slug) for slug in LATER}}
    before = ZYGOTE.count
    graded = grade(files)
    for slug in LATER:
        assert graded.exercise(slug)["score"] == graded.exercise(slug)["max_score"], slug
    assert ZYGOTE.count - before == 2
