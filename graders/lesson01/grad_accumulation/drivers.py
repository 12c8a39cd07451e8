"""Drivers of `grad_accumulation`: accumulated_gradient on a w that requires grad, in the worker.

The caller's w must come out as it went in; the driver gives the student's function a w that
requires grad and sends back what it returned (or the error it raised) and w afterwards.
"""

from __future__ import annotations

from types import ModuleType

import torch


def call_with_tracked_w(module: ModuleType, w: torch.Tensor, X: torch.Tensor, y: torch.Tensor, k: int) -> dict:
    """Runs in the worker: accumulated_gradient on a w that requires grad; what it returned, or the error it
    raised (a copy left in w's graph has no .grad of its own), and w afterwards."""
    tracked = w.clone().requires_grad_(True)
    try:
        return {"value": module.accumulated_gradient(tracked, X, y, k), "w_after": tracked, "raised": None}
    except Exception as error:  # noqa: BLE001 - reported with w's state, which tells why it was raised
        return {"value": None, "w_after": tracked, "raised": f"{type(error).__name__}: {str(error)[:200]}"}
