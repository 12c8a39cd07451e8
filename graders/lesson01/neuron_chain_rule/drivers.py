"""Drivers of `neuron_chain_rule`: the student's neuron followed by backward(), in the worker.

A check must see that neuron keeps the graph: the driver calls it on a leaf that requires grad,
calls backward() on the output and sends back the output, whether it requires grad, and w.grad.
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
