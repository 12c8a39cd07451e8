"""A private view of the file system for a worker of a root grader: only what it may reach.

A root grader's worker becomes an unprivileged user, and that user could not even reach a
Python installed under /root (mode 0700), nor the submission in a 0700 temporary folder.
So before it gives up root, the worker makes itself a mount namespace whose root is an
empty, read-only tmpfs, binds into it, read-only and at their usual paths, exactly the
paths of its reach (reach.py), and a size-capped tmpfs as its scratch folder, then pivots
into it and detaches the old root. Everything else (the project, the reference, other students, the
course, the home folder, /proc of other processes) is simply not there. The view dies
with the worker. Landlock, where the kernel has it, then applies to the same paths.
"""

from __future__ import annotations

import ctypes
import os
import platform
from pathlib import Path

from graders.sandbox.reach import Reach

_CLONE_NEWNS = 0x00020000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_MS_NOATIME, _MS_NODIRATIME, _MS_RELATIME = 1024, 2048, 1 << 21
_ST_RELATIME = 4096
_MNT_DETACH = 2
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
OLD_ROOT = ".old-root"


class ViewError(OSError):
    """A step of building the view failed; the message says which."""


def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
    libc.syscall.restype = ctypes.c_long
    return libc


def _check(result: int, what: str) -> None:
    if result != 0:
        number = ctypes.get_errno()
        raise ViewError(number, f"{what}: {os.strerror(number)}")


def _mount(libc: ctypes.CDLL, source: str | None, target: str, kind: str | None, flags: int,
           data: str | None = None) -> None:
    encode = (lambda s: s.encode() if s is not None else None)
    _check(libc.mount(encode(source), encode(target), encode(kind), flags, encode(data)), f"mount {target}")


def enter(reach: Reach, root: Path, sources: dict[Path, Path], scratch: tuple[int, int, int] = (64, 0, 0)) -> None:
    """Make a view of `reach` on the empty folder `root` and pivot into it; raises ViewError.

    `sources` maps a path of the view to the folder whose content it shows instead (a copy of
    the submission that the worker's unprivileged user may read). Each writable path is a
    tmpfs of its own, `scratch` = (size in MiB, uid, gid): a worker that fills it gets ENOSPC,
    never the grader's disk, and its pages count against the worker's memory cgroup."""
    libc = _libc()
    machine = platform.machine()
    if machine not in _PIVOT_ROOT:
        raise ViewError(0, f"no pivot_root number known for {machine}")
    _check(libc.unshare(_CLONE_NEWNS), "unshare")
    _mount(libc, None, "/", None, _MS_REC | _MS_PRIVATE)  # nothing of ours propagates back
    _mount(libc, "graders-view", str(root), "tmpfs", _MS_NOSUID | _MS_NODEV, "size=1m,mode=0755")
    for path in reach.readable:
        _bind(libc, root, path, sources.get(path, path), read_only=True, device=False)
    for path in reach.devices:
        _bind(libc, root, path, path, read_only=True, device=True)
    size, uid, gid = scratch
    for path in reach.writable:
        target = root / path.relative_to("/")
        target.mkdir(parents=True, exist_ok=True)
        _mount(libc, "graders-scratch", str(target), "tmpfs", _MS_NOSUID | _MS_NODEV,
               f"size={size}m,nr_inodes=4096,mode=0700,uid={uid},gid={gid}")
    proc = [p for p in reach.readable if p.parent == Path("/proc") and p.name.isdigit()]
    if proc:  # /proc/self and /proc/thread-self name the worker's own entry
        os.symlink(proc[0].name, root / "proc" / "self")
        os.symlink(f"{proc[0].name}/task/{proc[0].name}", root / "proc" / "thread-self")
    (root / OLD_ROOT).mkdir()
    _check(libc.syscall(_PIVOT_ROOT[machine], str(root).encode(), str(root / OLD_ROOT).encode()), "pivot_root")
    os.chdir("/")
    _check(libc.umount2(f"/{OLD_ROOT}".encode(), _MNT_DETACH), "umount the old root")
    os.rmdir(f"/{OLD_ROOT}")
    _mount(libc, None, "/", None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)


def _bind(libc: ctypes.CDLL, root: Path, path: Path, source: Path, *, read_only: bool, device: bool) -> None:
    if not source.exists():
        return
    target = root / path.relative_to("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir():
        target.mkdir(exist_ok=True)
    elif not target.exists():
        target.touch()
    _mount(libc, str(source), str(target), None, _MS_BIND | _MS_REC)
    flags = _MS_REMOUNT | _MS_BIND | _MS_NOSUID | _kept_flags(source) | (_MS_RDONLY if read_only else 0)
    if not device:
        flags |= _MS_NODEV
    _mount(libc, None, str(target), None, flags)


def _kept_flags(path: Path) -> int:
    """The flags of the mount `path` lies on that a remount must repeat (or the kernel refuses it)."""
    flags = os.statvfs(path).f_flag
    kept = flags & (_MS_RDONLY | _MS_NOSUID | _MS_NODEV | _MS_NOEXEC | _MS_NOATIME | _MS_NODIRATIME)
    return kept | (_MS_RELATIME if flags & _ST_RELATIME else 0)
