# mistake: closed-form least squares instead of gradient descent
# fails: fit_matches_reference, fit_uses_autograd, fit_follows_lr_and_steps

import torch
from torch import Tensor


def make_quadratic_data(n: int = 100, seed: int = 0, noise: float = 0.3) -> tuple[Tensor, Tensor]:
    torch.manual_seed(seed)
    X = torch.rand(n, 1) * 4 - 2
    y = 0.5 * X**2 - X + 1 + noise * torch.randn(n, 1)
    return X, y


def fit_quadratic(X: Tensor, y: Tensor, lr: float = 0.1, steps: int = 500) -> tuple[float, float, float]:
    # The exact minimiser, straight away: no gradient descent, lr and steps unused.
    design = torch.cat([X**2, X, torch.ones_like(X)], dim=1).double()
    solution = torch.linalg.lstsq(design, y.double()).solution.reshape(-1)
    return tuple(float(v) for v in solution)
