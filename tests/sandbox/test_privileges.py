"""What a root grader's worker gives up (graders/sandbox/privileges.py): no capability, no root user,
nothing of the machine it may change."""

from __future__ import annotations

import os
import socket
import tempfile
from pathlib import Path

import pytest

from attacks import ONLY_F, SLUG, assert_earns_only_the_honest_part, attack


@pytest.mark.skipif(os.geteuid() != 0, reason="what root's workers give up can only be seen as root")
def test_a_root_graders_worker_has_no_privilege_and_cannot_touch_the_machine(grade) -> None:
    code = """
import ctypes, fcntl, os, time
libc = ctypes.CDLL(None, use_errno=True)
status = open('/proc/self/status').read()
caps = [line for line in status.splitlines() if line.startswith('Cap') and not line.endswith('0' * 16)]
if caps or os.getuid() == 0 or os.geteuid() == 0:
    found = f'uid {os.getuid()}, {caps}'
class Timespec(ctypes.Structure):
    _fields_ = [('sec', ctypes.c_long), ('nsec', ctypes.c_long)]
now = Timespec(int(time.time()), 0)
if libc.clock_settime(0, ctypes.byref(now)) == 0:
    found = 'set the clock'
if libc.reboot(0xfee1dead, 672274793, 0, 0) == 0:  # LINUX_REBOOT_CMD_CAD_OFF: harmless, needs CAP_SYS_BOOT
    found = 'used reboot()'
open('pinned', 'w').write('x')
fd = os.open('pinned', os.O_RDONLY)
flags = ctypes.c_int(0x10)  # FS_IMMUTABLE_FL
if libc.ioctl(fd, 0x40086602, ctypes.byref(flags)) == 0:  # FS_IOC_SETFLAGS
    found = 'made a file immutable'
if libc.sethostname(b'owned', 5) == 0:
    found = 'renamed the machine'
"""
    scratch_folders = set(Path(tempfile.gettempdir()).glob("graders-worker-*"))
    graded = grade({SLUG: attack(code)}, *ONLY_F)
    assert_earns_only_the_honest_part(graded)
    assert set(Path(tempfile.gettempdir()).glob("graders-worker-*")) <= scratch_folders  # all removed
    assert graded.result["confined"] is True
    assert "unprivileged user" in graded.result["confinement"]
    assert socket.gethostname() != "owned"
