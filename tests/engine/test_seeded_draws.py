"""A seeded recipe's two draws made otherwise (graders/engine/seeded_draws.py): each way equals what a student's
code that draws so gets after torch.manual_seed, and the grader's own random stream is left where it was."""

from __future__ import annotations

import torch

from graders.engine.seeded_draws import recipe_drawn_otherwise, uniform_and_normal


def _as_a_student_draws(n: int, seed: int, normal_first: bool, dtype: torch.dtype) -> tuple[torch.Tensor, ...]:
    torch.manual_seed(seed)
    if normal_first:
        normal = torch.randn(n, 1, dtype=dtype)
        return torch.rand(n, 1, dtype=dtype), normal
    uniform = torch.rand(n, 1, dtype=dtype)
    return uniform, torch.randn(n, 1, dtype=dtype)


def test_each_way_of_drawing_is_what_the_global_stream_gives_after_the_seed() -> None:
    for normal_first, dtype in ((False, torch.float32), (True, torch.float32), (False, torch.float64)):
        got = uniform_and_normal(37, 5, normal_first=normal_first, dtype=dtype)
        want = _as_a_student_draws(37, 5, normal_first, dtype)
        assert all(torch.equal(g, w) and g.dtype == dtype for g, w in zip(got, want)), (normal_first, dtype)


def test_the_ways_differ_from_one_another_and_leave_the_global_stream_alone() -> None:
    right, first, double = (uniform_and_normal(20, 0), uniform_and_normal(20, 0, normal_first=True),
                            uniform_and_normal(20, 0, dtype=torch.float64))
    assert not torch.allclose(right[0], first[0]) and not torch.allclose(right[0], double[0].float())
    torch.manual_seed(123)
    before = torch.get_rng_state()
    uniform_and_normal(10, 1)
    assert torch.equal(torch.get_rng_state(), before)


def test_the_recipe_drawn_otherwise_is_the_recipe_a_student_writes_with_the_draws_swapped_or_in_float64() -> None:
    noise_first_X, noise_first_y, double_X, double_y = recipe_drawn_otherwise(12, 3, lambda X: 2 * X + 1, 0.5)
    torch.manual_seed(3)
    noise = torch.randn(12, 1)
    X = torch.rand(12, 1) * 4 - 2
    assert torch.equal(noise_first_X, X) and torch.allclose(noise_first_y, 2 * X + 1 + 0.5 * noise)
    torch.manual_seed(3)
    X = torch.rand(12, 1, dtype=torch.float64) * 4 - 2
    y = 2 * X + 1 + 0.5 * torch.randn(12, 1, dtype=torch.float64)
    assert torch.equal(double_X, X.float()) and torch.equal(double_y, y.float())


def test_data_of_another_generator_follow_the_recipes_law_and_other_data_do_not() -> None:
    import numpy as np

    from graders.engine.seeded_draws import follows_the_recipes_law

    def parabola(X):
        return 0.5 * X**2 - X + 1

    rng = np.random.default_rng(3)
    X = torch.from_numpy(rng.uniform(-2.0, 2.0, size=(100, 1))).float()
    y = parabola(X) + 0.3 * torch.from_numpy(rng.standard_normal((100, 1))).float()
    assert follows_the_recipes_law(X, y, parabola, 0.3)
    assert not follows_the_recipes_law(X * 2, y, parabola, 0.3)  # x outside [-2, 2]
    assert not follows_the_recipes_law(X, y + 1, parabola, 0.3)  # residuals centred at 1
    assert not follows_the_recipes_law(X, parabola(X) + 0.9 * (y - parabola(X)) / 0.3, parabola, 0.3)  # noise 0.9
    assert not follows_the_recipes_law(X[:10], y[:10], parabola, 0.3)  # too few points to tell
    assert not follows_the_recipes_law(X.reshape(-1), y.reshape(-1), parabola, 0.3)  # not columns
    assert follows_the_recipes_law(X, parabola(X), parabola, 0.0)
