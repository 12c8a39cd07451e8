"""The grad_accumulation checks build the lesson's own data (and, in a twin run, fresh data
of the same kind), and their mistake variants are what those mistakes really compute."""

from __future__ import annotations

import torch

from graders.engine.fresh import twin_run
from graders.lesson01.grad_accumulation import checks


def test_lesson_data_gives_the_worked_examples_first_step() -> None:
    w, X, y = checks.lesson_data()
    loss = ((X @ w - y) ** 2).mean()
    update = -0.1 * checks.full_batch_gradient(w, X, y)
    # The lesson prints "step   0  loss 15.4288  w 0.792  b -0.362".
    assert round(loss.item(), 4) == 15.4288
    assert [round(v, 3) for v in update.tolist()] == [0.792, -0.362]


def _accumulate(w: torch.Tensor, X: torch.Tensor, y: torch.Tensor, k: int, part_loss, zero: bool) -> torch.Tensor:
    leaf = w.clone().requires_grad_(True)
    for X_part, y_part in zip(X.tensor_split(k), y.tensor_split(k)):
        if zero and leaf.grad is not None:
            leaf.grad.zero_()
        part_loss((X_part @ leaf - y_part) ** 2).backward()
    return leaf.grad


def test_each_variant_is_what_its_mistake_computes() -> None:
    generator = torch.Generator().manual_seed(0)
    X = torch.randn(10, 3, generator=generator, dtype=torch.float64)
    y = torch.randn(10, generator=generator, dtype=torch.float64)
    w = torch.randn(3, generator=generator, dtype=torch.float64)
    k = 3  # 4, 3, 3 rows
    variants = checks.wrong_gradients(w, X, y, k)
    made = {
        checks.NOT_SCALED.name: _accumulate(w, X, y, k, lambda e: e.mean(), zero=False),
        checks.MEAN_OF_MEANS.name: _accumulate(w, X, y, k, lambda e: e.mean() / k, zero=False),
        checks.DIVIDED_TWICE.name: _accumulate(w, X, y, k, lambda e: e.mean() / 10, zero=False),
        checks.ZEROED_BETWEEN_MICRO_BATCHES.name: _accumulate(w, X, y, k, lambda e: e.sum() / 10, zero=True),
    }
    for name, gradient in made.items():
        assert any(torch.allclose(gradient, v) for v in variants[name]), name
    right = _accumulate(w, X, y, k, lambda e: e.sum() / 10, zero=False)
    assert torch.allclose(right, checks.full_batch_gradient(w, X, y))


PASSES_WITHOUT_ANSWERS = '''
import torch


def repeated_backward_grads(x0, calls):
    return [0.0] * calls


def accumulated_gradient(w, X, y, micro_batches):
    leaf = w.detach().clone().requires_grad_(True)
    for X_part, y_part in zip(torch.tensor_split(X, micro_batches), torch.tensor_split(y, micro_batches)):
        (0 * (X_part @ leaf - y_part) ** 2).sum().backward()
    return leaf.grad.detach()
'''


def test_one_backward_per_micro_batch_earns_nothing_for_a_wrong_gradient(grade) -> None:
    # Clean, detached, one backward() per micro-batch, and always zero: nothing here is right.
    graded = grade({"grad_accumulation": PASSES_WITHOUT_ANSWERS}, "-k", "grad_accumulation")
    assert graded.exercise("grad_accumulation")["score"] == 0, graded.output


def _twin_inputs(seed: int) -> tuple[tuple[float, int], tuple[torch.Tensor, ...], dict[int, int], str]:
    with twin_run(seed):
        return (checks.lesson_case(), checks.lesson_data(), {k: checks.micro_batches(k) for k in (3, 4, 7)},
                checks.gradient_call(5))


def test_twin_inputs_are_the_lessons_kind_and_shown_as_they_are() -> None:
    lesson_w, lesson_X, lesson_y = checks.lesson_data()
    for seed in range(20):
        (x0, calls), (w, X, y), splits, shown = _twin_inputs(seed)
        assert 1 <= x0 <= 5 and 2 <= calls <= 6
        assert (w.shape, X.shape, y.shape) == (lesson_w.shape, lesson_X.shape, lesson_y.shape)
        assert w.dtype == X.dtype == y.dtype == torch.float32 and not torch.equal(X, lesson_X)
        assert (w.abs() <= 1).all() and (X[:, 0].abs() <= 2).all() and (X[:, 1] == 1).all()
        # The points lie on the lesson's line, up to its noise.
        assert (y - (3 * X[:, 0] - 2)).abs().max() < 2
        for published, k in splits.items():
            assert k != published and (100 % k == 0) == (100 % published == 0)
            assert len(X.tensor_split(k)) == len(X.chunk(k)) == k
        assert shown == f"accumulated_gradient(w, X, y, micro_batches=5) with {checks.FRESH_DATA}"


def test_no_variant_is_mistaken_for_the_right_gradient_on_twin_data() -> None:
    for seed in range(20):
        _, (w, X, y), splits, _ = _twin_inputs(seed)
        right = checks.full_batch_gradient(w, X, y)
        for k in splits.values():
            for name, values in checks.wrong_gradients(w, X, y, k).items():
                if name == checks.MEAN_OF_MEANS.name and 100 % k == 0:
                    continue  # equal groups: the mean of the means is the mean, as the mistake says
                assert all(not torch.allclose(v, right, rtol=1e-5, atol=1e-5) for v in values), (seed, k, name)


def test_means_divided_by_n_again_are_one_over_the_group_size_of_the_right_gradient() -> None:
    # With equal groups of n rows, a mean divided by N as well gives exactly 1/n of the gradient:
    # the ratio the mistake is named by, and not the k of "not scaled" or the 1 of "divided by k".
    w, X, y = checks.lesson_data()
    right = checks.full_batch_gradient(w, X, y)
    for k in (1, 4, 5):
        (variant,) = checks.wrong_gradients(w, X, y, k)[checks.DIVIDED_TWICE.name]
        assert torch.allclose(variant, right * k / 100, rtol=1e-5, atol=1e-7), k


def test_kept_grads_are_what_a_list_of_the_grad_tensor_itself_shows() -> None:
    x = torch.tensor(3.0, requires_grad=True)
    kept = []
    for _ in range(3):
        (x ** 2).backward()
        kept.append(x.grad)  # the same tensor each time: backward() adds into it in place
    assert [t.item() for t in kept] == checks.kept_grads(3.0, 3) == [18.0, 18.0, 18.0]


def test_grads_written_from_the_formula_cost_the_lesson_case_only(grade) -> None:
    from conftest import ROOT

    source = (ROOT / "reference" / "lesson01" / "grad_accumulation.py").read_text()
    body_start = source.index('    """', source.index("def repeated_backward_grads"))
    body_start = source.index('"""\n', body_start + 7) + 4
    body_end = source.index("\ndef accumulated_gradient")
    formula = "    return [2.0 * x0 * k for k in range(1, calls + 1)]\n\n"
    graded = grade({"grad_accumulation": source[:body_start] + formula + source[body_end:]}, "-k", "grad_accumulation")
    assert graded.failed("grad_accumulation") == {"repeated_backward_on_lesson_case"}, graded.output
    message = graded.checks("grad_accumulation")["repeated_backward_on_lesson_case"]["message"]
    assert "called backward() 0 time(s) for 3 passes" in message, message


def test_a_warning_the_student_code_prints_names_the_file_without_the_graded_folder(grade, tmp_path) -> None:
    from mistake_catalogue import submission

    graded = grade({"grad_accumulation": submission("grad_accumulation", "copy_not_detached")},
                   "-k", "grad_accumulation")
    message = graded.checks("grad_accumulation")["accumulated_gradient_is_clean"]["message"]
    printed = next(line for line in message.splitlines() if line.strip().startswith("printed:"))
    assert "grad_accumulation.py:" in printed and str(tmp_path) not in message, message


def test_right_answers_written_another_way_score_full_marks(grade) -> None:
    from mistake_catalogue import submission

    graded = grade({"grad_accumulation": submission("grad_accumulation", "correct_weighted_means")}, "-k", "grad_accumulation")
    assert graded.failed("grad_accumulation") == set(), graded.output


def test_one_micro_batch_divided_by_one_not_n_loses_a_hidden_point(grade) -> None:
    # micro_batches=1 is the docstring's lower end: the one group's loss is still the mean over N rows.
    import course_config

    source = (course_config.ROOT / "reference" / "lesson01" / "grad_accumulation.py").read_text()
    old = "    rows = X.shape[0]"
    assert old in source
    graded = grade({"grad_accumulation": source.replace(old, "    rows = X.shape[0] if micro_batches > 1 else 1")},
                   "-k", "grad_accumulation")
    assert graded.failed("grad_accumulation") == {"accumulated_gradient_on_fresh_data"}, graded.output


def test_a_name_that_fits_one_fresh_input_by_chance_is_not_given(grade) -> None:
    # Dividing by X.shape[1] (features) for X.shape[0] (rows): on fresh data of 12 rows and 3 features in 4
    # micro-batches that is 4 times the gradient, what unscaled micro-batch losses give, but on no other input.
    from conftest import ROOT

    reference = (ROOT / "reference" / "lesson01" / "grad_accumulation.py").read_text()
    source = reference.replace("rows = X.shape[0]", "rows = X.shape[1]")
    assert source != reference
    check = grade({"grad_accumulation": source}).checks("grad_accumulation")["accumulated_gradient_on_fresh_data"]
    assert not check["passed"] and check["mistake"] != checks.NOT_SCALED.name, check["message"]
