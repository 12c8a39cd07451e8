"""The system calls a worker may not make: create processes, or reach other processes.

RLIMIT_NPROC would cap processes, but the kernel does not apply it to root, and CI runs
as root. A seccomp filter does apply, to root too, and for good once installed:

- `fork`, `vfork` and a `clone` without CLONE_THREAD fail with EPERM (threads, a `clone`
  with CLONE_THREAD, stay allowed); `clone3` answers ENOSYS, which makes the C library
  fall back to `clone`, whose flags the filter can read. A fork bomb fails at its first fork.
- `kill`, `tkill` and `tgkill` may only target the worker itself (or its own group):
  a submission cannot stop, interrupt or kill the grader. `ptrace`, `process_vm_*` and
  the pidfd calls are refused.
- Calls through another ABI (32-bit `int 0x80`, x32) are refused outright, since their
  numbers differ and would otherwise slip past.

Linux on x86_64 and aarch64 only; elsewhere the worker runs without it.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct
from dataclasses import dataclass

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_CLONE_THREAD = 0x00010000
_X32_BIT = 0x40000000
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_ABSENT = 0xFFFFFFFF  # a number no call has: stands in where an architecture lacks a call

_LOAD, _JEQ, _JGE, _JSET, _RETURN = 0x20, 0x15, 0x35, 0x45, 0x06
_ARCH_OFFSET, _NR_OFFSET, _FIRST_ARG_OFFSET = 4, 0, 16  # in struct seccomp_data (little-endian)


@dataclass(frozen=True)
class _Calls:
    arch: int  # the audit architecture of the native ABI
    clone: int
    clone3: int
    refused: tuple[int, ...]  # fork, vfork, ptrace, process_vm_readv/writev, pidfd_*
    signals: tuple[int, ...]  # kill, tkill, tgkill: allowed towards the worker itself only


_CALLS = {
    "x86_64": _Calls(0xC000003E, 56, 435, (57, 58, 101, 310, 311, 424, 434, 438), (62, 200, 234)),
    "aarch64": _Calls(0xC00000B7, 220, 435, (_ABSENT, 117, 270, 271, 424, 434, 438), (129, 130, 131)),
}


def _program(calls: _Calls, own_pid: int) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jump if true, jump if false, value); jumps are resolved from labels."""
    steps: list[tuple[int, object, object, int]] = [
        (_LOAD, 0, 0, _ARCH_OFFSET),
        (_JEQ, 0, "refuse", calls.arch),
        (_LOAD, 0, 0, _NR_OFFSET),
        (_JGE, "refuse", 0, _X32_BIT),
        *[(_JEQ, "refuse", 0, number) for number in calls.refused],
        (_JEQ, "no_such_call", 0, calls.clone3),
        (_JEQ, "clone", 0, calls.clone),
        *[(_JEQ, "signal", 0, number) for number in calls.signals],
        (_RETURN, 0, 0, _ALLOW),
    ]
    labels = {"clone": len(steps)}
    steps += [(_LOAD, 0, 0, _FIRST_ARG_OFFSET), (_JSET, "allow", "refuse", _CLONE_THREAD)]
    labels["signal"] = len(steps)
    steps += [(_LOAD, 0, 0, _FIRST_ARG_OFFSET), (_JEQ, "allow", 0, own_pid), (_JEQ, "allow", "refuse", 0)]
    labels.update(allow=len(steps), refuse=len(steps) + 1, no_such_call=len(steps) + 2)
    steps += [(_RETURN, 0, 0, _ALLOW), (_RETURN, 0, 0, _ERRNO | errno.EPERM), (_RETURN, 0, 0, _ERRNO | errno.ENOSYS)]

    def offset(target: object, at: int) -> int:
        return labels[target] - at - 1 if isinstance(target, str) else int(target)  # type: ignore[arg-type]

    return [(code, offset(yes, at), offset(no, at), value) for at, (code, yes, no, value) in enumerate(steps)]


def confine(own_pid: int) -> bool:
    """Install the filter in this process; False where it is not available."""
    calls = _CALLS.get(platform.machine())
    if calls is None:
        return False
    instructions = b"".join(struct.pack("=HBBI", *step) for step in _program(calls, own_pid))
    buffer = ctypes.create_string_buffer(instructions, len(instructions))

    class _Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    program = _Program(len(instructions) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) == 0
