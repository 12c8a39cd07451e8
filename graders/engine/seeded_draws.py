"""A seeded recipe's two draws made otherwise: in the other order, point by point, or in float64.

After torch.manual_seed(seed) every random call takes the next numbers of one stream, so a recipe's data depend on
the order of its calls and on the dtype each draws in (a float64 draw takes other bits of the stream than a float32
one). The lesson's data recipes draw a uniform X, then a normal noise; a room builds its data from the draws below to
name data drawn another way, which look just as random as the right ones. Data drawn from another generator
altogether (NumPy's, Python's random) are no draws of torch's stream at all: `follows_the_recipes_law` tells them by
the law they follow, the recipe's, while their numbers are not its.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import torch


def uniform_and_normal(n: int, seed: int, *, normal_first: bool = False,
                       dtype: torch.dtype = torch.float32) -> tuple[torch.Tensor, torch.Tensor]:
    """(torch.rand(n, 1), torch.randn(n, 1)) as drawn after torch.manual_seed(seed), the uniform first unless
    `normal_first`, both in `dtype`. A generator of their own: the grader's global stream is left as it is."""
    stream = torch.Generator().manual_seed(seed)  # the same numbers torch.manual_seed(seed) gives
    if normal_first:
        normal = torch.randn(n, 1, generator=stream, dtype=dtype)
        return torch.rand(n, 1, generator=stream, dtype=dtype), normal
    uniform = torch.rand(n, 1, generator=stream, dtype=dtype)
    return uniform, torch.randn(n, 1, generator=stream, dtype=dtype)


def recipe_drawn_otherwise(n: int, seed: int, clean: Callable[[torch.Tensor], torch.Tensor],
                           noise: float) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """The lesson's data recipe, X = torch.rand(n, 1) * 4 - 2 and y = clean(X) + noise * torch.randn(n, 1), drawn
    two wrong ways: (X, y) with the noise drawn before X, then (X, y) drawn in float64 and made float32."""
    pairs = []
    for uniform, normal in (uniform_and_normal(n, seed, normal_first=True),
                            uniform_and_normal(n, seed, dtype=torch.float64)):
        X = uniform * 4 - 2
        pairs += [X.float(), (clean(X) + noise * normal).float()]
    return pairs[0], pairs[1], pairs[2], pairs[3]


def recipe_drawn_point_by_point(n: int, seed: int, clean: Callable[[torch.Tensor], torch.Tensor],
                                noise: float) -> tuple[torch.Tensor, torch.Tensor]:
    """The lesson's data recipe drawn one point at a time, each x and then its noise, as a loop over the points does:
    after the seed, the stream's numbers go to x_0, e_0, x_1, e_1, ... where the recipe gives all of X first."""
    stream = torch.Generator().manual_seed(seed)
    xs, ys = [], []
    for _ in range(n):
        x = torch.rand(1, generator=stream) * 4 - 2
        xs.append(x)
        ys.append(clean(x) + noise * torch.randn(1, generator=stream))
    return torch.stack(xs), torch.stack(ys)


def follows_the_recipes_law(X: Any, y: Any, clean: Callable[[torch.Tensor], torch.Tensor], noise: float,
                            low: float = -2.0, high: float = 2.0) -> bool:
    """Whether (X, y) look drawn from the recipe's law, X uniform on [low, high] and y = clean(X) plus normal noise
    of standard deviation `noise`: every x within the range, and the mean and spread of x and of the residuals
    y - clean(X) within about four standard errors of the law's (n of 30 at least, columns of n)."""
    if not (type(X) is torch.Tensor and type(y) is torch.Tensor and X.is_floating_point() and y.is_floating_point()
            and X.shape == y.shape and X.dim() == 2 and X.shape[1] == 1 and X.shape[0] >= 30):
        return False
    x, n = X.detach().double().reshape(-1), X.shape[0]
    if not bool(torch.isfinite(x).all()) or float(x.min()) < low - 1e-6 or float(x.max()) > high + 1e-6:
        return False
    centre, spread = (low + high) / 2, (high - low) / math.sqrt(12)
    if abs(float(x.mean()) - centre) > 4 * spread / math.sqrt(n) or abs(float(x.std()) / spread - 1) > 0.25:
        return False
    residual = y.detach().double().reshape(-1) - clean(x)
    if noise == 0:
        return float(residual.abs().max()) < 1e-4
    return (abs(float(residual.mean())) <= 4 * noise / math.sqrt(n)
            and abs(float(residual.std()) / noise - 1) <= 0.3)
