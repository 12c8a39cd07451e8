"""Linux Landlock: what a worker may open, connect to and signal, for good once restricted.

A worker may read, and run code, only beneath the folders it is given (the Python
installation, the submission's own folder), write only in its scratch folder, use only the
device files it is given, connect or bind no TCP port (ABI 4), and neither reach abstract
Unix sockets nor signal processes outside its own sandbox (ABI 6). Everything else fails
with EACCES (EPERM for signals), as root too. Landlock also keeps a sandboxed process from
tracing, or opening the memory of, any process outside its sandbox.

Each newer ABI adds rights; this module uses all that the kernel offers and reports the ABI.
"""

from __future__ import annotations

import ctypes
import os
import platform
import stat
import struct
from pathlib import Path

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same on x86_64 and aarch64
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH, _RULE_NET_PORT = 1, 2
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_CHANGE_FOLDER = sum(1 << bit for bit in range(4, 13))  # remove, make char/dir/reg/sock/fifo/block/sym
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15  # ABI 2, 3, 5
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1  # ABI 4
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1  # ABI 6

READ = EXECUTE | READ_FILE | READ_DIR


def _syscall() -> ctypes._CFuncPtr:  # type: ignore[name-defined]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc.syscall


def abi_version() -> int:
    """The Landlock ABI this kernel offers; 0 when it has none."""
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "aarch64"):
        return 0
    version = _syscall()(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(int(version), 0)


def _filesystem_rights(abi: int) -> int:
    return (READ | WRITE_FILE | _CHANGE_FOLDER | (REFER if abi >= 2 else 0) | (TRUNCATE if abi >= 3 else 0)
            | (IOCTL_DEV if abi >= 5 else 0))


def _file_rights(abi: int) -> int:
    """The rights that a rule on a single file (not a folder) may carry."""
    return EXECUTE | READ_FILE | WRITE_FILE | (TRUNCATE if abi >= 3 else 0) | (IOCTL_DEV if abi >= 5 else 0)


def restrict(readable: list[Path], writable: list[Path], devices: list[Path]) -> int:
    """Restrict this process for good; returns the ABI used, 0 where Landlock is missing or fails.

    `readable`: folders or files to read and run; `writable`: folders to change at will;
    `devices`: device files to read and write (e.g. /dev/null). Paths that do not exist are skipped.
    """
    abi = abi_version()
    if abi < 1:
        return 0
    syscall = _syscall()
    handled = _filesystem_rights(abi)
    if abi >= 6:
        attr = struct.pack("=QQQ", handled, _NET_BIND_TCP | _NET_CONNECT_TCP,
                           _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL)
    elif abi >= 4:
        attr = struct.pack("=QQ", handled, _NET_BIND_TCP | _NET_CONNECT_TCP)
    else:
        attr = struct.pack("=Q", handled)
    ruleset = syscall(_CREATE_RULESET, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        return 0
    try:
        rules = ([(path, READ) for path in readable] + [(path, handled) for path in writable]
                 + [(path, READ_FILE | WRITE_FILE | IOCTL_DEV | TRUNCATE) for path in devices])
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                if not stat.S_ISDIR(os.fstat(fd).st_mode):
                    rights &= _file_rights(abi)
                rule = struct.pack("=Qi", rights & handled, fd)
                if syscall(_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                           ctypes.c_char_p(rule), ctypes.c_uint32(0)) != 0:
                    return 0
            finally:
                os.close(fd)
        if ctypes.CDLL(None).prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return 0
        return abi if syscall(_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) == 0 else 0
    finally:
        os.close(ruleset)
