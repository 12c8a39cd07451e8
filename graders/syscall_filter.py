"""Forbid a worker to create processes, so a fork bomb fails at its first fork.

RLIMIT_NPROC would be the usual cap, but the kernel does not apply it to root, and CI runs
as root. A seccomp filter does apply: `fork`, `vfork` and a `clone` without CLONE_THREAD
fail with EPERM, while threads (a `clone` with CLONE_THREAD) stay allowed. `clone3`
answers ENOSYS, which makes the C library fall back to `clone`, where the flags can be
read. Linux on x86_64 and aarch64 only; elsewhere the worker runs without it.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_CLONE_THREAD = 0x00010000
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000
_NO_SYSCALL = 0xFFFFFFFF  # a number no call has: stands in where an architecture lacks fork/vfork

# (audit architecture, fork, vfork, clone, clone3) by machine name
_SYSCALLS = {
    "x86_64": (0xC000003E, 57, 58, 56, 435),
    "aarch64": (0xC00000B7, _NO_SYSCALL, _NO_SYSCALL, 220, 435),
}

_LOAD, _JEQ, _JSET, _RETURN = 0x20, 0x15, 0x45, 0x06
_ARCH_OFFSET, _NR_OFFSET, _FIRST_ARG_OFFSET = 4, 0, 16  # in struct seccomp_data (little-endian)


def _program(arch: int, fork: int, vfork: int, clone: int, clone3: int) -> list[tuple[int, int, int, int]]:
    # (code, jump if true, jump if false, value); jumps count the instructions skipped.
    return [
        (_LOAD, 0, 0, _ARCH_OFFSET),
        (_JEQ, 0, 7, arch),  # another ABI: leave it alone
        (_LOAD, 0, 0, _NR_OFFSET),
        (_JEQ, 6, 0, fork),
        (_JEQ, 5, 0, vfork),
        (_JEQ, 5, 0, clone3),
        (_JEQ, 0, 2, clone),
        (_LOAD, 0, 0, _FIRST_ARG_OFFSET),
        (_JSET, 0, 1, _CLONE_THREAD),
        (_RETURN, 0, 0, _ALLOW),
        (_RETURN, 0, 0, _ERRNO | errno.EPERM),
        (_RETURN, 0, 0, _ERRNO | errno.ENOSYS),
    ]


def forbid_new_processes() -> bool:
    """Install the filter in this process (for good); False where it is not available."""
    syscalls = _SYSCALLS.get(platform.machine())
    if syscalls is None:
        return False
    instructions = b"".join(struct.pack("=HBBI", *step) for step in _program(*syscalls))
    buffer = ctypes.create_string_buffer(instructions, len(instructions))

    class _Program(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    program = _Program(len(instructions) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(program), 0, 0) == 0
