"""Give a worker no privilege: an unprivileged uid when the grader is root, no capability in
any set, and no way to gain one back (no_new_privs).

Root keeps power through file ownership and through capabilities: with CAP_SYS_TIME a
worker sets the clock, with CAP_LINUX_IMMUTABLE it makes its scratch folder impossible to
remove, with CAP_SYS_BOOT it reboots the machine. So a worker of a root grader becomes
`LIMITS.worker_user` (nobody), and every worker empties its bounding, ambient, effective,
permitted and inheritable sets. Linux only.
"""

from __future__ import annotations

import ctypes
import os
import pwd
from pathlib import Path

_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_PR_SET_NO_NEW_PRIVS = 38
_CAPABILITY_VERSION_3 = 0x20080522
_PR_SET_DUMPABLE = 4


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def user_ids(name: str) -> tuple[int, int]:
    """The uid and gid of the account a root grader's workers run as (65534 if it is missing)."""
    try:
        entry = pwd.getpwnam(name)
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        return 65534, 65534


def last_capability() -> int:
    try:
        return int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        return 40  # CAP_CHECKPOINT_RESTORE, the last one in Linux 5.9 and later


def become(uid: int, gid: int) -> bool:
    """Switch every user and group id (real, effective, saved) and drop supplementary groups."""
    try:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    except OSError:
        return False
    return os.getresuid() == (uid, uid, uid) and os.getresgid() == (gid, gid, gid)


def drop_bounding_set() -> None:
    """Empty the bounding set, which caps what any later program could regain. It takes
    CAP_SETPCAP, so root must do it before becoming another user; an ordinary user cannot,
    and with no_new_privs and execve refused nothing can be regained from it anyway."""
    libc = _libc()
    for number in range(last_capability() + 1):
        libc.prctl(_PR_CAPBSET_DROP, number, 0, 0, 0)


def drop_capabilities() -> dict[str, int]:
    """Empty the ambient, effective, permitted and inheritable sets (and the bounding set,
    where still allowed), and set no_new_privs. Returns the sets that still hold any."""
    drop_bounding_set()
    libc = _libc()
    libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header, data = _CapHeader(_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    libc.capset(ctypes.byref(header), data)
    libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    return {name: value for name, value in capability_sets().items() if value}


def capability_sets() -> dict[str, int]:
    """This process's capability sets, as /proc/self/status shows them."""
    sets = {}
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
                sets[key] = int(value.strip(), 16)
    except OSError:
        pass
    return sets


def not_dumpable() -> bool:
    """Make this process (and what it forks) not dumpable: others of its user, and a process
    without CAP_SYS_PTRACE, may then not open its /proc/<pid>/mem."""
    try:
        return _libc().prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False
