"""Drivers of `neuron_chain_rule`: the student's neuron followed by backward(), in the worker.

A check must see that neuron keeps the graph: the driver calls it on a leaf that requires grad,
calls backward() on the output and sends back the output, whether it requires grad, and w.grad.
Another asks for the hand gradient twice of the same weights, moved in place between, as training does.
"""

from __future__ import annotations

from types import ModuleType

import torch


def backward_through_neuron(module: ModuleType, w: torch.Tensor, inp: torch.Tensor) -> dict:
    """Runs in the worker: the lesson's out = neuron(w, inp); out.backward(); read w.grad."""
    leaf = w.detach().clone().requires_grad_(True)
    out = module.neuron(leaf, inp)
    if type(out) is not torch.Tensor:
        return {"out": out, "requires_grad": False, "grad": None}
    if out.dim() == 0 and out.requires_grad:
        out.backward()
    return {"out": out.detach(), "requires_grad": out.requires_grad, "grad": leaf.grad}


def grads_around_a_step(module: ModuleType, w: torch.Tensor, inp: torch.Tensor, step: torch.Tensor) -> dict:
    """Runs in the worker: neuron_grad_by_hand of weights that require grad, then of the same tensor after an
    in-place update under no_grad (w += step), as a training loop asks it; the second answer, which the check
    judges (the first is the one other checks judge)."""
    weights, kept = w.detach().clone().requires_grad_(True), inp.clone()
    module.neuron_grad_by_hand(weights, inp)
    with torch.no_grad():
        weights.add_(step)
        inp.copy_(kept)  # the same tensor, as it was: a first call that overwrote it is another check's to tell
    return {"second": module.neuron_grad_by_hand(weights, inp)}
