"""Keep the grader's memory out of a worker's reach, with or without Landlock.

A process may open another's /proc/<pid>/mem for writing when it could ptrace it: same
user and a "dumpable" target, or the capability CAP_SYS_PTRACE (which root has). The
seccomp filter refuses the ptrace calls but cannot see file paths, and Landlock, which
keeps a worker's writes in its scratch folder, is missing on older kernels and in some
containers. So the grader makes itself not dumpable before it forks a worker, and the
worker gives up CAP_SYS_PTRACE before any student code runs: then neither a worker of the
same user nor one running as root can reach the grader's memory (or another worker's).
Linux only; elsewhere both steps do nothing.
"""

from __future__ import annotations

import ctypes

_PR_SET_DUMPABLE = 4
_CAPABILITY_VERSION_3 = 0x20080522
_CAP_SYS_PTRACE = 19


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _libc() -> ctypes.CDLL | None:
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


def protect_this_process() -> bool:
    """Make this process (and the workers it forks) not dumpable; True if it worked."""
    libc = _libc()
    return libc is not None and hasattr(libc, "prctl") and libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0


def drop_ptrace_capability() -> bool:
    """Remove CAP_SYS_PTRACE from this process's capability sets; True if it is gone."""
    libc = _libc()
    if libc is None or not hasattr(libc, "capget"):
        return False
    header, data = _CapHeader(_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        return False
    bit = ~(1 << _CAP_SYS_PTRACE) & 0xFFFFFFFF  # the capability lives in the first 32-bit word
    for field in ("effective", "permitted", "inheritable"):
        setattr(data[0], field, getattr(data[0], field) & bit)
    return libc.capset(ctypes.byref(header), data) == 0
