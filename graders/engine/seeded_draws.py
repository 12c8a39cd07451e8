"""A seeded recipe's two draws made otherwise: in the other order, or in float64.

After torch.manual_seed(seed) every random call takes the next numbers of one stream, so a recipe's data depend on
the order of its calls and on the dtype each draws in (a float64 draw takes other bits of the stream than a float32
one). The lesson's data recipes draw a uniform X, then a normal noise; a room builds its data from the draws below to
name data drawn another way, which look just as random as the right ones.
"""

from __future__ import annotations

from typing import Callable

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
