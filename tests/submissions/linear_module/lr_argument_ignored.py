# mistake: lr argument ignored
# fails: matches_reference, fresh_runs
# replayed fails:

"""A wrong submission for linear_module."""

import torch
from torch import nn


def fit_linear_module(lr: float = 0.1, steps: int = 101, seed: int = 42) -> tuple[list[float], float, float]:
    """Fit y = 3x − 2 (plus noise) with a one-input linear layer, the lesson's way.

    Reproduce the lesson's script exactly, so that its numbers come out again:

    1. `torch.manual_seed(seed)`, once, before anything random is made;
    2. the data: `X = torch.rand(100, 1) * 4 - 2` and
       `y = 3 * X - 2 + 0.3 * torch.randn(100, 1)`, both of shape (100, 1), float32;
    3. the model `nn.Linear(in_features=1, out_features=1)`, the loss `nn.MSELoss()` and
       the optimiser `torch.optim.SGD(model.parameters(), lr=lr)`, in that order (the
       layer draws its starting weight and bias from the same random stream);
    4. `steps` passes of the five-line training loop: zero the gradients, forward pass,
       loss, backward pass, optimiser step.

    Args:
        lr: the learning rate of the optimiser.
        steps: how many passes of the training loop to run (the lesson runs 101: steps 0 to 100).
        seed: the seed given to `torch.manual_seed` at the start.

    Returns:
        A tuple `(losses, weight, bias)`:
        - `losses`: a list of `steps` Python floats, the loss of each pass, as computed in
          that pass before the optimiser's update (the lesson prints 13.4355 at step 0);
        - `weight`, `bias`: the layer's learned weight and bias as Python floats
          (the lesson prints 2.965 and -2.0).
    """
    torch.manual_seed(seed)
    X = torch.rand(100, 1) * 4 - 2
    y = 3 * X - 2 + 0.3 * torch.randn(100, 1)

    model = nn.Linear(in_features=1, out_features=1)
    loss_fn = nn.MSELoss()
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)  # the lesson's rate

    losses = []
    for _ in range(steps):
        optimiser.zero_grad()
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimiser.step()
        # .item() logs a plain number; keeping the tensor would keep its graph alive.
        losses.append(loss.item())
    return losses, model.weight.item(), model.bias.item()
