"""The seccomp filter (graders/sandbox/syscall_filter.py): no new process through any door, the
32-bit system call door closed too, and the filter assembles for both architectures."""

from __future__ import annotations

import platform

import pytest

from attacks import ONLY_F, SLUG, assert_earns_only_the_honest_part, attack


def test_new_processes_fail_through_every_door(grade) -> None:
    code = """
import ctypes, os, signal, subprocess
libc = ctypes.CDLL(None, use_errno=True)
for number, flags in ((57, 0), (58, 0), (56, signal.SIGCHLD), (435, 0)):  # fork, vfork, clone, clone3
    pid = libc.syscall(number, flags, 0, 0, 0, 0)
    if pid == 0:
        os._exit(0)
    if pid > 0:
        found = f'started a process with call {number}'
try:
    subprocess.run(['true'], check=False)
    found = 'ran a program'
except OSError:
    pass
try:
    os.execv(sys.executable, [sys.executable, '-c', 'pass'])
except OSError:
    pass
""".replace("sys.executable", "'/bin/true'")
    assert_earns_only_the_honest_part(grade({SLUG: attack(code)}, *ONLY_F))


@pytest.mark.skipif(platform.machine() != "x86_64", reason="the 32-bit system call door exists on x86_64")
def test_the_32_bit_system_call_door_is_closed(grade) -> None:
    code = """
import ctypes, mmap, os
page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(bytes([0xB8, 2, 0, 0, 0, 0xCD, 0x80, 0xC3]))  # i386 fork through int 0x80
pid = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))()
if pid == 0:
    os._exit(0)
if pid > 0:
    found = 'forked through int 0x80'
"""
    assert_earns_only_the_honest_part(grade({SLUG: attack(code)}, *ONLY_F))


def test_the_filter_of_both_architectures_assembles() -> None:
    from graders.sandbox import syscall_filter

    for name, architecture in syscall_filter._ARCHITECTURES.items():
        program = syscall_filter.program(architecture, 4242)
        assert len(program) % 8 == 0 and 50 < len(program) // 8 < 300, name
