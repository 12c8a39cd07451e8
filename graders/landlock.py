"""Let a worker write only inside its scratch folder (Linux Landlock).

Without this, a submission could rewrite the reference, the grader's own modules or
another student's files, and so change every later grading run. Landlock restricts the
worker for good, as root too: any write, removal or creation outside the allowed folders
fails with EACCES. Reading stays allowed (torch and Python import lazily from many
places). Where the kernel supports it (ABI 6), signals to processes outside the worker
are refused as well. On kernels without Landlock the worker runs without it.
"""

from __future__ import annotations

import ctypes
import os
import platform
import struct
from pathlib import Path

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # the same on x86_64 and aarch64
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38
_SCOPE_SIGNAL = 1 << 1

_WRITE_FILE = 1 << 1
_FOLDER_WRITES = (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12)
_REFER, _TRUNCATE = 1 << 13, 1 << 14  # from ABI 2 and 3


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


def restrict_writes(folders: list[Path], files: list[Path]) -> bool:
    """Allow writes only beneath `folders` and to `files`; False where Landlock is missing."""
    abi = abi_version()
    if abi < 1:
        return False
    syscall = _syscall()
    file_rights = _WRITE_FILE | (_TRUNCATE if abi >= 3 else 0)
    handled = file_rights | _FOLDER_WRITES | (_REFER if abi >= 2 else 0)
    scoped = _SCOPE_SIGNAL if abi >= 6 else 0
    attr = struct.pack("=QQQ", handled, 0, scoped) if abi >= 6 else struct.pack("=Q", handled)
    ruleset = syscall(_CREATE_RULESET, ctypes.c_char_p(attr), ctypes.c_size_t(len(attr)), ctypes.c_uint32(0))
    if ruleset < 0:
        return False
    try:
        rules = [(folder, handled) for folder in folders] + [(file, file_rights) for file in files]
        for path, rights in rules:
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = struct.pack("=Qi", rights, fd)
                if syscall(_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(_RULE_PATH_BENEATH),
                           ctypes.c_char_p(rule), ctypes.c_uint32(0)) != 0:
                    return False
            finally:
                os.close(fd)
        if ctypes.CDLL(None).prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return syscall(_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) == 0
    finally:
        os.close(ruleset)
