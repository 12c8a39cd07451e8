"""Drivers of `linear_module`: the student's training run with backward() and SGD.step() watched, in the worker.

The order of zero_grad, backward and step shows only from inside the run: the driver wraps
SGD.__init__, SGD.step and torch.autograd.backward for the call, and sends back one letter
per event. What the letters mean is decided in the grader.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import torch


def watch_training(module: ModuleType, lr: float, steps: int, seed: int) -> str:
    """Runs in the worker: fit with backward() and SGD.step() watched, and return one letter
    per call: "b" a backward onto cleared gradients, "a" one onto gradients still held;
    "s" a step with gradients, "e" a step with none. Judged by the gradients themselves,
    so any way of clearing them (optimiser, model, by hand) counts."""
    params: list[torch.Tensor] = []
    events: list[str] = []
    original_init, original_step = torch.optim.SGD.__init__, torch.optim.SGD.step
    original_backward = torch.autograd.backward

    def held() -> bool:
        return any(p.grad is not None and bool(p.grad.detach().ne(0).any()) for p in params)

    def init(self: torch.optim.SGD, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        params.extend(p for group in self.param_groups for p in group["params"])

    def step(self: torch.optim.SGD, *args: Any, **kwargs: Any) -> Any:
        closure = args[0] if args else kwargs.get("closure")
        if closure is None:
            events.append("s" if held() else "e")
            return original_step(self, *args, **kwargs)
        # step(closure) runs the closure first, as SGD.step does (under enable_grad), and only then updates with
        # the gradients it computed: watched in that order, so a loop written with a closure reads as one backward()
        # and then one step, not as a step that found no gradient.
        with torch.enable_grad():
            loss = closure()
        events.append("s" if held() else "e")
        return original_step(self, lambda: loss)

    def backward(*args: Any, **kwargs: Any) -> Any:
        events.append("a" if held() else "b")
        return original_backward(*args, **kwargs)

    torch.optim.SGD.__init__, torch.optim.SGD.step, torch.autograd.backward = init, step, backward
    try:
        module.fit_linear_module(lr, steps, seed)
    finally:
        torch.optim.SGD.__init__, torch.optim.SGD.step = original_init, original_step
        torch.autograd.backward = original_backward
    return "".join(events)
