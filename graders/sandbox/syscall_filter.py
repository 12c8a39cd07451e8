"""The system calls a worker may not make (a seccomp filter, for good once installed).

RLIMIT_NPROC would cap processes, and file permissions would keep a user off other users'
processes, but the kernel waives both for root and a worker may run as the grader's own
user. A seccomp filter binds every user, root included. Installed last, once the worker's
own channel to the grader exists, it refuses:

- new processes and programs: `fork`, `vfork`, a `clone` without CLONE_THREAD (threads stay
  allowed), `execve`; `clone3` answers ENOSYS so that the C library falls back to `clone`,
  whose flags the filter can read. A fork bomb fails at its first fork.
- reaching other processes: `kill`, `tkill`, `tgkill` and the `rt_*sigqueueinfo` calls,
  `prlimit64`, the scheduling and I/O priority calls and page migration only towards the
  worker itself; `ptrace`, `process_vm_*`, `kcmp` and every pidfd call never.
- leaving its place: `setsid`, `setpgid`, `unshare`, `setns`, every uid, gid and capability
  change, and `prctl` beyond a short list of harmless options (so PR_SET_PDEATHSIG, which
  ties the worker's life to its parent's, stays as the worker set it).
- the network and every IPC but its channel: `socket`, `socketpair`, System V and POSIX
  message queues, semaphores and shared memory, `io_uring` (whose operations would bypass
  this filter).
- memory outside the address space: `memfd_create` and `memfd_secret` (a memfd's pages do not
  count against RLIMIT_AS; where there is no cgroup, nothing else would count them).
- the machine: mounts, the clock, reboot, kernel modules, kexec, swap, BPF, perf events,
  keyrings, userfaultfd, quotas, host names.
- any call through another ABI (32-bit `int 0x80`, x32), whose numbers differ.

Everything else stays allowed: torch and Python use a great many calls. Linux on x86_64
and aarch64 only; elsewhere the worker runs without the filter, and says so.
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
_PRIO_PROCESS = 0
_IOPRIO_WHO_PROCESS = 1

_LOAD, _JEQ, _JGE, _JSET, _RETURN = 0x20, 0x15, 0x35, 0x45, 0x06
_ARCH_OFFSET, _NR_OFFSET = 4, 0
_ARG_OFFSETS = (16, 24, 32, 40, 48, 56)  # low 32 bits of each argument in struct seccomp_data (little-endian)
_MAX_JUMP = 255  # a conditional jump's offsets are one byte each

# prctl options a worker may use: reading its own state, naming itself or its memory, and
# restricting itself further. Anything else (PR_SET_PDEATHSIG, PR_SET_DUMPABLE,
# PR_SET_PTRACER, PR_SET_CHILD_SUBREAPER, PR_SET_MM, ...) is refused.
SAFE_PRCTL_OPTIONS = (
    2,   # PR_GET_PDEATHSIG
    3,   # PR_GET_DUMPABLE
    7,   # PR_GET_KEEPCAPS
    15,  # PR_SET_NAME
    16,  # PR_GET_NAME
    21,  # PR_GET_SECCOMP
    22,  # PR_SET_SECCOMP: a further filter can only refuse more
    23,  # PR_CAPBSET_READ
    27,  # PR_GET_SECUREBITS
    30,  # PR_GET_TIMERSLACK
    37,  # PR_GET_CHILD_SUBREAPER
    38,  # PR_SET_NO_NEW_PRIVS
    39,  # PR_GET_NO_NEW_PRIVS
    40,  # PR_GET_TID_ADDRESS
    42,  # PR_GET_THP_DISABLE
    52,  # PR_GET_SPECULATION_CTRL
    0x53564D41,  # PR_SET_VMA: the C library names its own memory areas
)

# Calls refused outright, by name; a name an architecture lacks is skipped there.
REFUSED = (
    "fork", "vfork", "execve", "execveat",
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp",
    "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "process_madvise", "process_mrelease",
    "setsid", "setpgid", "unshare", "setns",
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups", "setfsuid", "setfsgid",
    "capset", "chroot", "pivot_root", "personality",
    "socket", "socketpair",
    "msgget", "msgsnd", "msgrcv", "msgctl", "semget", "semop", "semctl", "semtimedop",
    "shmget", "shmat", "shmctl", "shmdt",
    "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    "memfd_create", "memfd_secret",
    "mount", "umount2", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog", "vhangup",
    "sethostname", "setdomainname", "iopl", "ioperm",
    "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
    "open_by_handle_at", "fanotify_init", "lookup_dcookie", "nfsservctl", "uselib",
)
# Calls whose first argument names a process: allowed towards the worker itself (its pid, or 0).
TOWARDS_SELF = ("kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "prlimit64",
                "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr",
                "migrate_pages", "move_pages")

_X86_64 = {
    "fork": 57, "vfork": 58, "clone": 56, "clone3": 435, "execve": 59, "execveat": 322,
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "kcmp": 312,
    "pidfd_open": 434, "pidfd_getfd": 438, "pidfd_send_signal": 424, "process_madvise": 440,
    "process_mrelease": 448, "kill": 62, "tkill": 200, "tgkill": 234, "rt_sigqueueinfo": 129,
    "rt_tgsigqueueinfo": 297, "prlimit64": 302, "prctl": 157, "setsid": 112, "setpgid": 109,
    "setpriority": 141, "sched_setaffinity": 203, "sched_setscheduler": 144, "sched_setparam": 142,
    "sched_setattr": 314, "ioprio_set": 251, "migrate_pages": 256, "move_pages": 279,
    "socket": 41, "socketpair": 53, "unshare": 272, "setns": 308, "mount": 165, "umount2": 166,
    "pivot_root": 155, "chroot": 161, "bpf": 321, "perf_event_open": 298, "userfaultfd": 323,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "keyctl": 250,
    "add_key": 248, "request_key": 249, "kexec_load": 246, "kexec_file_load": 320, "init_module": 175,
    "finit_module": 313, "delete_module": 176, "reboot": 169, "settimeofday": 164, "clock_settime": 227,
    "clock_adjtime": 305, "adjtimex": 159, "sethostname": 170, "setdomainname": 171, "iopl": 172,
    "ioperm": 173, "acct": 163, "quotactl": 179, "quotactl_fd": 443, "syslog": 103,
    "open_by_handle_at": 304, "fanotify_init": 300, "fsopen": 430, "fsconfig": 431, "fsmount": 432,
    "fspick": 433, "move_mount": 429, "open_tree": 428, "mount_setattr": 442, "msgget": 68,
    "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "semget": 64, "semop": 65, "semctl": 66,
    "semtimedop": 220, "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67, "mq_open": 240,
    "mq_unlink": 241, "mq_timedsend": 242, "mq_timedreceive": 243, "mq_notify": 244,
    "mq_getsetattr": 245, "setuid": 105, "setgid": 106, "setreuid": 113, "setregid": 114,
    "setresuid": 117, "setresgid": 119, "setgroups": 116, "setfsuid": 122, "setfsgid": 123,
    "capset": 126, "swapon": 167, "swapoff": 168, "vhangup": 153, "personality": 135,
    "lookup_dcookie": 212, "nfsservctl": 180, "uselib": 134, "memfd_create": 319, "memfd_secret": 447,
}
# aarch64 numbers its calls as asm-generic/unistd.h does; it has no fork, vfork, iopl, ioperm, uselib.
_AARCH64 = {
    "clone": 220, "clone3": 435, "execve": 221, "execveat": 281, "ptrace": 117, "process_vm_readv": 270,
    "process_vm_writev": 271, "kcmp": 272, "pidfd_open": 434, "pidfd_getfd": 438, "pidfd_send_signal": 424,
    "process_madvise": 440, "process_mrelease": 448, "kill": 129, "tkill": 130, "tgkill": 131,
    "rt_sigqueueinfo": 138, "rt_tgsigqueueinfo": 240, "prlimit64": 261, "prctl": 167, "setsid": 157,
    "setpgid": 154, "setpriority": 140, "sched_setaffinity": 122, "sched_setscheduler": 119,
    "sched_setparam": 118, "sched_setattr": 274, "ioprio_set": 30, "migrate_pages": 238, "move_pages": 239,
    "socket": 198, "socketpair": 199, "unshare": 97, "setns": 268, "mount": 40, "umount2": 39,
    "pivot_root": 41, "chroot": 51, "bpf": 280, "perf_event_open": 241, "userfaultfd": 282,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "keyctl": 219, "add_key": 217,
    "request_key": 218, "kexec_load": 104, "kexec_file_load": 294, "init_module": 105, "finit_module": 273,
    "delete_module": 106, "reboot": 142, "settimeofday": 170, "clock_settime": 112, "clock_adjtime": 266,
    "adjtimex": 171, "sethostname": 161, "setdomainname": 162, "acct": 89, "quotactl": 60, "quotactl_fd": 443,
    "syslog": 116, "open_by_handle_at": 265, "fanotify_init": 262, "fsopen": 430, "fsconfig": 431,
    "fsmount": 432, "fspick": 433, "move_mount": 429, "open_tree": 428, "mount_setattr": 442,
    "msgget": 186, "msgsnd": 189, "msgrcv": 188, "msgctl": 187, "semget": 190, "semop": 193, "semctl": 191,
    "semtimedop": 192, "shmget": 194, "shmat": 196, "shmctl": 195, "shmdt": 197, "mq_open": 180,
    "mq_unlink": 181, "mq_timedsend": 182, "mq_timedreceive": 183, "mq_notify": 184, "mq_getsetattr": 185,
    "setuid": 146, "setgid": 144, "setreuid": 145, "setregid": 143, "setresuid": 147, "setresgid": 149,
    "setgroups": 159, "setfsuid": 151, "setfsgid": 152, "capset": 91, "swapon": 224, "swapoff": 225,
    "vhangup": 58, "personality": 92, "lookup_dcookie": 18, "nfsservctl": 42, "memfd_create": 279,
    "memfd_secret": 447,
}


@dataclass(frozen=True)
class _Architecture:
    audit: int  # the audit architecture of the native ABI
    numbers: dict[str, int]


_ARCHITECTURES = {
    "x86_64": _Architecture(0xC000003E, _X86_64),
    "aarch64": _Architecture(0xC00000B7, _AARCH64),
}


def available() -> bool:
    """Whether this machine's architecture has a filter here (Linux x86_64 or aarch64)."""
    return platform.system() == "Linux" and platform.machine() in _ARCHITECTURES


class _Program:
    """A classic BPF program written with labels; jumps are resolved when it is packed."""

    def __init__(self) -> None:
        self.steps: list[tuple[int, object, object, int]] = []
        self.labels: dict[str, int] = {}

    def label(self, name: str) -> None:
        self.labels[name] = len(self.steps)

    def load(self, offset: int) -> None:
        self.steps.append((_LOAD, 0, 0, offset))

    def jump(self, code: int, value: int, yes: object = 0, no: object = 0) -> None:
        self.steps.append((code, yes, no, value))

    def ret(self, value: int) -> None:
        self.steps.append((_RETURN, 0, 0, value))

    def pack(self) -> bytes:
        def offset(target: object, at: int) -> int:
            if not isinstance(target, str):
                return int(target)  # type: ignore[call-overload]
            distance = self.labels[target] - at - 1
            if not 0 <= distance <= _MAX_JUMP:
                raise ValueError(f"jump to {target} spans {distance} steps; the filter needs reordering")
            return distance

        return b"".join(struct.pack("=HBBI", code, offset(yes, at), offset(no, at), value)
                        for at, (code, yes, no, value) in enumerate(self.steps))


def program(architecture: _Architecture, own_pid: int) -> bytes:
    """The whole filter for this architecture and this worker's pid."""
    numbers = architecture.numbers
    p = _Program()
    p.load(_ARCH_OFFSET)
    p.jump(_JEQ, architecture.audit, no="refuse")
    p.load(_NR_OFFSET)
    p.jump(_JGE, _X32_BIT, yes="refuse")
    for name in REFUSED:
        if name in numbers:
            p.jump(_JEQ, numbers[name], yes="refuse")
    p.jump(_JEQ, numbers["clone3"], yes="no_such_call")
    p.jump(_JEQ, numbers["clone"], yes="clone")
    for name in TOWARDS_SELF:
        p.jump(_JEQ, numbers[name], yes="first_is_self")
    p.jump(_JEQ, numbers["prctl"], yes="prctl")
    p.jump(_JEQ, numbers["setpriority"], yes="setpriority")
    p.jump(_JEQ, numbers["ioprio_set"], yes="ioprio_set")
    p.ret(_ALLOW)

    p.label("clone")
    p.load(_ARG_OFFSETS[0])
    p.jump(_JSET, _CLONE_THREAD, yes="allow", no="refuse")

    p.label("setpriority")  # setpriority(PRIO_PROCESS, pid, ...) only: a group or a user is others too
    p.load(_ARG_OFFSETS[0])
    p.jump(_JEQ, _PRIO_PROCESS, yes="second_is_self", no="refuse")
    p.label("ioprio_set")
    p.load(_ARG_OFFSETS[0])
    p.jump(_JEQ, _IOPRIO_WHO_PROCESS, yes="second_is_self", no="refuse")
    p.label("second_is_self")
    p.load(_ARG_OFFSETS[1])
    p.jump(_JEQ, own_pid, yes="allow")
    p.jump(_JEQ, 0, yes="allow", no="refuse")

    p.label("first_is_self")
    p.load(_ARG_OFFSETS[0])
    p.jump(_JEQ, own_pid, yes="allow")
    p.jump(_JEQ, 0, yes="allow", no="refuse")

    p.label("prctl")
    p.load(_ARG_OFFSETS[0])
    for option in SAFE_PRCTL_OPTIONS:
        p.jump(_JEQ, option, yes="allow")
    # no option matched: on to "refuse", the next step

    p.label("refuse")
    p.ret(_ERRNO | errno.EPERM)
    p.label("allow")
    p.ret(_ALLOW)
    p.label("no_such_call")
    p.ret(_ERRNO | errno.ENOSYS)
    return p.pack()


def confine(own_pid: int) -> bool:
    """Install the filter in this process (no_new_privs first); False where it is not available."""
    if not available():
        return False
    instructions = program(_ARCHITECTURES[platform.machine()], own_pid)
    buffer = ctypes.create_string_buffer(instructions, len(instructions))

    class _Filter(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    bpf = _Filter(len(instructions) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return False
    return libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(bpf), 0, 0) == 0
