"""A submission that searches its own process for what a worker must never hold.

Written as a determined student would: `f` of sin_exp_derivative walks every object the garbage
collector tracks (dicts, lists, tuples, sets, functions' constants, tensors), every frame of
every thread up to its root, `sys.modules`, the environment (os.environ, /proc/self/environ
and cmdline) and, raw, every writable page of its memory (what was freed stays there), and looks
for the needles: a classmate's answers (a canary token each honest
classmate's file carries), the reference's modules and files, the hidden checks' ids and
seeds, and the expected values a recording of the reference holds. It then raises one
RuntimeError whose message says how many needles it found and how much it scanned, which the
check's feedback shows.

The needles go into the submission as salted digests only (the secrets themselves must not be
put in the worker by the test): the walker digests what it finds with the same salt. A canary is
found inside larger strings (a classmate's whole source) by its public prefix.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from pathlib import Path

import torch

import course_config
from conftest import STUBS
from graders.sandbox import unpack

SALT = "salt-" + secrets.token_hex(8)
CANARY_PREFIX = "QZXJK-"
_SLUG = "sin_exp_derivative"
PLANTED = ("planted canary", "planted seed", "planted tensor")
REPORT = re.compile(r"LOOT (?P<found>\d+) \[(?P<what>[^\]]*)\] SCANNED (?P<strings>\d+) strings (?P<ints>\d+) "
                    r"ints (?P<tensors>\d+) tensors (?P<frames>\d+) frames (?P<modules>\d+) modules (?P<raw>\d+) MiB (?P<zygote>forked|exec)")


def digest(text: str) -> str:
    return hashlib.blake2b((SALT + text).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def tensor_digest(t: torch.Tensor) -> str:
    return digest(f"{t.dtype}{tuple(t.shape)}" + t.detach().contiguous().numpy().tobytes().hex())


def canary() -> str:
    """A token a classmate's answer carries (in a comment), never seen by the attacker."""
    return CANARY_PREFIX + secrets.token_hex(13)


def hidden_needles() -> dict[str, str]:
    """What no worker may hold, by digest: every hidden check's id (as an id and as its test's
    name), every seed of the course that no public message shows (the fresh and twin seeds, all
    above 100 000), and the reference's module names and files."""
    needles = {}
    for lesson in course_config.LESSONS:
        for exercise in lesson.exercises:
            for check in exercise.checks:
                if check.hidden:
                    needles[digest(check.id)] = f"hidden check id {check.id}"
                    needles[digest(f"test_{check.id}")] = f"hidden check test_{check.id}"
            for name, setting in exercise.seeds.items():
                if type(setting.value) is int and setting.value > 100_000:
                    needles[digest(str(setting.value))] = f"seed {exercise.slug}.{name}"
            reference = course_config.ROOT / "reference" / lesson.folder / f"{exercise.slug}.py"
            needles[digest(str(reference))] = f"reference file {reference.name}"
            needles[digest(f"reference_{lesson.folder}_{exercise.slug}")] = f"reference module {exercise.slug}"
    return needles


def expected_needles(recording: Path) -> dict[str, str]:
    """The tensors of a recording of the reference's expected values (of 4 elements or more), by digest."""
    needles = {}
    for key, packed in json.loads(recording.read_text()).items():
        for value in _tensors(unpack(bytes.fromhex(packed))):
            if value.numel() >= 4 and value.dtype.is_floating_point:
                needles[tensor_digest(value)] = f"expected value {key.split(':')[0]}"
    return needles


def _tensors(value: object) -> list[torch.Tensor]:
    if type(value) is torch.Tensor:
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for item in value for t in _tensors(item)]
    return []


def looting_module(needles: dict[str, str]) -> tuple[str, dict[str, str]]:
    """sin_exp_derivative's module whose f loots instead of answering (the rest is not written), and
    the needles it looks for: those given and three it plants in itself (a canary, a seed and the
    reference's f on the lesson's grid), which the walk must find to show that it sees them."""
    stub = (STUBS / "lesson01" / f"{_SLUG}.py").read_text()
    token = canary()
    seed = course_config.LESSON_01.exercise("dtypes_and_devices").seed("twins")
    grid = torch.linspace(0, 5, 50)
    planted = {digest(token): PLANTED[0], digest(str(seed)): PLANTED[1],
               tensor_digest(torch.sin(grid) * torch.exp(-grid)): PLANTED[2]}
    every = {**needles, **planted}
    walker = WALKER.replace("@SALT@", SALT).replace("@PREFIX@", CANARY_PREFIX).replace("@NEEDLES@", repr(sorted(every)))
    plant = (f"\n_PLANTED = ({token!r}, {seed}, torch.sin(torch.linspace(0, 5, 50)) * "
             f"torch.exp(-torch.linspace(0, 5, 50)))\n")
    return stub + walker + plant, every


def assert_found_only_the_planted(message: str, needles: dict[str, str]) -> None:
    """The walk found its own three needles and nothing else, after a walk through everything."""
    found, scanned = read_report(message, needles)
    assert sorted(found) == sorted(PLANTED), found
    # It went everywhere: torch's and Python's objects, every module, the frames up to the worker's root.
    assert scanned["strings"] > 20_000 and scanned["ints"] > 1_000 and scanned["modules"] > 200, scanned
    assert scanned["frames"] >= 3 and scanned["tensors"] >= 1 and scanned["raw"] >= 16, scanned


WALKER = r'''

import gc as _gc
import hashlib as _hashlib
import os as _os
import sys as _sys

_SALT, _PREFIX, _NEEDLES = "@SALT@", "@PREFIX@", frozenset(@NEEDLES@)


def _digest(text):
    return _hashlib.blake2b((_SALT + text).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def _loot():
    strings, ints, tensors, frames, modules = set(), set(), [], 0, 0

    def take(value, depth=0):
        kind = type(value)
        if kind is str:
            strings.add(value)
        elif kind is bytes and len(value) < 1 << 20:
            strings.add(value.decode("latin-1"))
        elif kind is int:
            ints.add(value)
        elif isinstance(value, torch.Tensor):
            tensors.append(value)
        elif depth < 2 and kind in (tuple, list, frozenset, set):
            for item in list(value):
                take(item, depth + 1)

    _gc.unfreeze()  # what the zygote froze out of the collector's sight comes back into it
    for thing in _gc.get_objects():
        try:
            if type(thing) is dict:
                for key, value in list(thing.items()):
                    take(key)
                    take(value)
            elif type(thing) in (list, tuple, set, frozenset):
                take(thing)
            elif isinstance(thing, torch.Tensor):
                tensors.append(thing)
            elif hasattr(thing, "__code__"):
                take(thing.__code__.co_consts)
                take(thing.__code__.co_filename)
                take(thing.__code__.co_names)
        except Exception:
            pass
    for top in _sys._current_frames().values():
        frame = top
        while frame is not None:
            frames += 1
            take(frame.f_code.co_filename)
            for key, value in list(frame.f_locals.items()):
                take(key)
                take(value)
            frame = frame.f_back
    for name, module in list(_sys.modules.items()):
        modules += 1
        take(name)
        take(getattr(module, "__file__", None))
    for key, value in _os.environ.items():
        take(key)
        take(value)
    import ctypes as _ctypes

    raw = 0  # bytes of writable memory read raw: what was freed stays there, and is looked through for canaries
    try:
        with open("/proc/self/maps") as maps:
            regions = [line.split() for line in maps]
        for fields in regions:
            if not fields[1].startswith("rw") or (len(fields) > 5 and not fields[5].startswith("[")):
                continue  # only anonymous memory, the heap and the stack: files mapped are on disk anyway
            if len(fields) > 5 and fields[5] in ("[vvar]", "[vsyscall]", "[vdso]"):
                continue
            low, high = (int(x, 16) for x in fields[0].split("-"))
            block = _ctypes.string_at(low, high - low)  # the process's own memory, read as any code of it can
            raw += len(block)
            start = block.find(_PREFIX.encode())
            while start != -1:
                strings.add(block[start:start + len(_PREFIX) + 26].decode("latin-1"))
                start = block.find(_PREFIX.encode(), start + 1)
    except OSError:
        pass
    for path in ("/proc/self/environ", "/proc/self/cmdline"):
        try:
            with open(path, "rb") as handle:
                strings.update(part.decode("latin-1") for part in handle.read().split(b"\0"))
        except OSError:
            pass
    found = set()
    for text in strings:
        if _digest(text) in _NEEDLES:
            found.add(_digest(text))
        start = text.find(_PREFIX)
        while start != -1:
            if _digest(text[start:start + len(_PREFIX) + 26]) in _NEEDLES:
                found.add(_digest(text[start:start + len(_PREFIX) + 26]))
            start = text.find(_PREFIX, start + 1)
    for number in ints:
        if _digest(str(number)) in _NEEDLES:
            found.add(_digest(str(number)))
    for tensor in tensors:
        try:
            if tensor.dtype.is_floating_point and tensor.numel() >= 4 and tensor.device.type == "cpu":
                shown = f"{tensor.dtype}{tuple(tensor.shape)}" + tensor.detach().contiguous().numpy().tobytes().hex()
                if _digest(shown) in _NEEDLES:
                    found.add(_digest(shown))
        except Exception:
            pass
    return (f"LOOT {len(found)} [{' '.join(sorted(found)[:8])}] SCANNED {len(strings)} strings {len(ints)} ints "
            f"{len(tensors)} tensors {frames} frames {modules} modules {raw // 2**20} MiB "
            f"{'forked' if '_pytest' in _sys.modules else 'exec'}")


def f(x):
    raise RuntimeError(_loot())
'''


def read_report(message: str, needles: dict[str, str]) -> tuple[list[str], dict[str, int]]:
    """What the walker found (the needles' descriptions) and how much it scanned, from a check's message."""
    match = REPORT.search(message)
    assert match is not None, f"the walker did not report: {message[:2000]}"
    found = [needles.get(d, d) for d in match["what"].split()]
    return found, {k: int(v) for k, v in match.groupdict().items() if k not in ("found", "what", "zygote")}


def zygote_kind(message: str) -> str:
    """How the looter's zygote was started, as it saw itself: "forked" from a grader, or "exec"."""
    match = REPORT.search(message)
    assert match is not None, message[:2000]
    return match["zygote"]
