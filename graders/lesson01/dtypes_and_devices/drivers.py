"""Drivers of `dtypes_and_devices`: pick_device under backends torch reports at will, and move_batch described, in the worker.

No machine here has CUDA or MPS, so the driver makes torch report them available or not,
however the question is spelled, for the length of a call (or of a fresh import of the
student's file). Tensors moved to the meta device have no values to send back: move_batch's
result is described key by key. Also run in the grader on the reference.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import torch

MISSING = "<function missing>"  # in place of an answer when the student's file has no such function


@contextmanager
def _backends(cuda: bool, mps: bool, module: object = None, built: bool = False) -> Iterator[list[tuple[Any, Any]]]:
    """Make torch report CUDA and MPS as available or not, however the question is spelled; with `built`, both
    built into torch even where not available (is_built() is not is_available()); gives the (fake, original)
    pairs in use."""
    accelerator = torch.device("cuda") if cuda else torch.device("mps") if mps else None
    fakes = {
        (torch.cuda, "is_available"): lambda: cuda,
        (torch.cuda, "device_count"): lambda: int(cuda),
        (torch.backends.mps, "is_available"): lambda: mps,
        (torch.backends.mps, "is_built"): lambda: mps or built,
        (torch.backends.cuda, "is_built"): lambda: cuda or built,
        (torch.mps, "is_available"): lambda: mps,
        (torch.accelerator, "is_available"): lambda: accelerator is not None,
        (torch.accelerator, "current_accelerator"): lambda check_available=False: accelerator,
    }
    saved = [(owner, name, getattr(owner, name), fake) for (owner, name), fake in fakes.items()]
    # `from torch.cuda import is_available` copies the function into the student's module.
    by_original = {id(original): fake for _, _, original, fake in saved}
    if isinstance(module, ModuleType):
        saved += [(module, name, value, by_original[id(value)])
                  for name, value in list(vars(module).items()) if id(value) in by_original]
    try:
        for owner, name, _, fake in saved:
            setattr(owner, name, fake)
        yield [(fake, original) for _, _, original, fake in saved]
    finally:
        for owner, name, original, _ in saved:
            setattr(owner, name, original)


def chosen_device(module: Any, cuda: bool, mps: bool, built: bool = False) -> Any:
    """Runs in the worker (and here for the reference): pick_device() as the backends say (`built`: both
    backends built into torch, whether available or not)."""
    function = getattr(module, "pick_device", None)
    if not callable(function):
        return MISSING
    with _backends(cuda, mps, module, built):
        return function()


def device_when_imported(module: ModuleType, imported: tuple[bool, bool], called: tuple[bool, bool]) -> Any:
    """Runs in the worker: the student's file run again as a second module while torch reports the
    backends `imported`, then that module's pick_device() while torch reports `called`."""
    path = Path(module.__file__)
    fresh = ModuleType(module.__name__)
    fresh.__file__ = str(path)
    code = compile(path.read_bytes(), str(path), "exec")
    with _backends(*imported) as fakes:
        exec(code, fresh.__dict__)
    # `from torch.cuda import is_available` took a fake into the fresh module: give it the real function back,
    # so that a question asked at call time hears the backends of the call.
    for name, value in list(vars(fresh).items()):
        original = next((original for fake, original in fakes if value is fake), None)
        if original is not None:
            setattr(fresh, name, original)
    return chosen_device(fresh, *called)


def moved_layout(module: ModuleType, batch: dict, device: Any) -> Any:
    """Runs in the worker: move_batch(batch, device), described key by key, since tensors
    on the meta device have no values to send back; and whether the call changed the
    caller's batch, which only the worker can see (the grader gets copies)."""
    function = getattr(module, "move_batch", None)
    if not callable(function):
        return MISSING
    before = {key: (value, value.device if isinstance(value, torch.Tensor) else None) for key, value in batch.items()}
    result = function(batch, device)
    moved = (f"a {type(result).__name__}" if type(result) is not dict else
             {key: tensor_slot(value, str(value.device)) if isinstance(value, torch.Tensor) else
              ("value", "a container of tensors" if holds_tensors(value) else value) for key, value in result.items()})
    # A value that holds tensors is kept as it is only if it is the very object the caller gave.
    entered = [key for key, (value, _) in before.items() if holds_tensors(value)
               and type(result) is dict and key in result and result[key] is not value]
    return {"moved": moved, "same_dict": result is batch, "changes": _changes(batch, before), "entered": entered}


def holds_tensors(value: Any, depth: int = 3) -> bool:
    """Whether a list, tuple, set or dict holds a tensor, a few levels deep."""
    if depth == 0 or not isinstance(value, (list, tuple, set, dict)):
        return False
    items = value.values() if isinstance(value, dict) else value
    return any(isinstance(item, torch.Tensor) or holds_tensors(item, depth - 1) for item in items)


def _changes(batch: dict, before: dict) -> list[str]:
    """What a call did to the caller's batch, one line per key it replaced, removed or added."""
    changes = []
    for key, (value, device) in before.items():
        if key not in batch:
            changes.append(f"batch[{key!r}] removed")
        elif batch[key] is not value or (device is not None and value.device != device):
            now = batch[key]  # a tensor on meta has no values: described by its layout only
            shown = (slot_text(tensor_slot(now, str(now.device))) if isinstance(now, torch.Tensor)
                     else f"a {type(now).__name__}")
            changes.append(f"batch[{key!r}] is now {shown}")
    return changes + [f"batch[{key!r}] added" for key in batch if key not in before]


def tensor_slot(tensor: torch.Tensor, device: str) -> tuple:
    return ("tensor", device, tensor.dtype, tuple(tensor.shape))


def slot_text(slot: tuple) -> str:
    _, device, dtype, shape = slot
    name = str(dtype).removeprefix("torch.")
    return f"{'an' if name.startswith('int') else 'a'} {name} tensor of shape {shape} on {device}"
