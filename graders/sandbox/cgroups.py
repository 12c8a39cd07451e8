"""A control group per worker: memory that counts everything, a cap on tasks, a share of the CPU.

RLIMIT_AS caps a worker's address space, but not what lives outside it: the pages of a memfd or of
files in a tmpfs (4 GiB were held under a 2.6 GiB limit that way), and threads count against no
limit at all (a thread that took every free PID made the batch's own fork fail; 64 busy threads
slowed every classmate thirtyfold). A cgroup counts all of it. Where the grader may make cgroups
(as root, cgroup v1 or v2), each worker joins a group of its own before any student code runs:

    memory   the limit on everything it holds (anonymous memory, tmpfs and memfd pages, page cache);
             past it the kernel's OOM killer takes the worker, and only the worker
    tasks    pids.max: its threads and processes together
    CPU      at most `cpus` cores (a CFS quota), and less weight than the grader's own processes

The groups live under the zygote's own group (so a machine's or a container's limit still covers
them), in a folder per zygote that it removes when it goes; a folder left by a killed zygote is
removed by the next one. Elsewhere (not root; cgroup v2 whose controllers cannot be delegated to
us), `Groups.find` returns why as a fact (`NoCgroups`: a reason code, the path and the error it
met), which the engine words (graders/engine/sandbox_words.py), and the worker keeps to the rlimits
of confinement.py.
"""

from __future__ import annotations

import contextlib
import enum
import os
import re
import signal
import time
from dataclasses import dataclass
from pathlib import Path

CONTROLLERS = ("memory", "pids", "cpu")
_OWNED = re.compile(r"^graders-(?P<pid>\d+)$")
_PERIOD_US = 100_000


class NoCgroupsReason(enum.StrEnum):
    """Why a worker has no cgroup of its own (the engine words each: graders/engine/sandbox_words.py)."""

    NOT_ROOT = "not_root"  # only root may make cgroups
    NO_CONTROLLERS = "no_controllers"  # no memory, pids and cpu controllers mounted (v1) or delegable (v2)
    NOT_WRITABLE = "not_writable"  # NoCgroups.path, where the groups would go, may not be written
    MAKING_FAILED = "making_failed"  # making NoCgroups.path failed with NoCgroups.error (the strerror)
    LEFT_OUT = "left_out"  # --sandbox-without cgroups
    NOT_ENTERED = "not_entered"  # the zygote had groups, but the worker's own could not be made
    NOT_LOOKED_FOR = "not_looked_for"  # the zygote had not looked for them yet


@dataclass(frozen=True)
class NoCgroups:
    """Why there can be no cgroups here, as a fact: a reason, and the path and error that go with it."""

    reason: NoCgroupsReason
    path: str = ""
    error: str = ""


@dataclass(frozen=True)
class Walls:
    """What one worker may use, counted by its group."""

    memory_bytes: int
    tasks: int
    cpus: float


@dataclass(frozen=True)
class Groups:
    """Where one zygote makes its workers' groups: a base folder per controller (v1), or one (v2)."""

    version: int
    bases: dict[str, Path]  # controller -> this zygote's folder (v2: the same folder for all three)

    @classmethod
    def find(cls, owner: int) -> "Groups | NoCgroups":
        """This zygote's groups, made now; or why there can be none here."""
        found = cls.locate(owner)
        if isinstance(found, NoCgroups):
            return found
        for base in set(found.bases.values()):
            _sweep(base.parent)
        try:
            for base in set(found.bases.values()):
                base.mkdir(exist_ok=True)
            if found.version == 2:
                _write(found.bases["memory"].parent / "cgroup.subtree_control", "+memory +pids +cpu")
                _write(found.bases["memory"] / "cgroup.subtree_control", "+memory +pids +cpu")
        except OSError as error:
            return NoCgroups(NoCgroupsReason.MAKING_FAILED, str(found.bases["memory"]), str(error.strerror or error))
        return found

    @classmethod
    def locate(cls, owner: int) -> "Groups | NoCgroups":
        """Where this zygote's groups would go, making nothing; or why there can be none here."""
        if os.geteuid() != 0:
            return NoCgroups(NoCgroupsReason.NOT_ROOT)
        mounts = _mounts()
        unified = mounts.get("cgroup2")
        if all(c in mounts for c in CONTROLLERS):
            bases = {c: mounts[c] / _own_path(c).lstrip("/") / f"graders-{owner}" for c in CONTROLLERS}
            version = 1
        elif unified is not None and set(CONTROLLERS) <= set(_read(unified / "cgroup.controllers").split()):
            # The root of the hierarchy is the one group whose processes do not stop its children from
            # having controllers: the base goes right under it.
            bases = {c: unified / f"graders-{owner}" for c in CONTROLLERS}
            version = 2
        else:
            return NoCgroups(NoCgroupsReason.NO_CONTROLLERS)
        if not all(os.access(base.parent, os.W_OK) for base in bases.values()):
            return NoCgroups(NoCgroupsReason.NOT_WRITABLE, str(bases["memory"].parent))
        return cls(version, bases)

    def enter(self, name: str, walls: Walls) -> bool:
        """Make the calling (forked, not yet confined) process a group of its own with these walls;
        returns whether it holds."""
        try:
            for controller, base in self.bases.items():
                (base / name).mkdir(exist_ok=True)
            if self.version == 1:
                self._limits_v1(name, walls)
            else:
                self._limits_v2(name, walls)
            for base in set(self.bases.values()):
                _write(base / name / "cgroup.procs", str(os.getpid()))
        except OSError:
            return False
        return True

    def out_of_memory(self, name: str) -> bool:
        """Whether the kernel's OOM killer took a process of the group (read before `remove`)."""
        if self.version == 1:
            return bool(re.search(r"^oom_kill [1-9]", _read(self.bases["memory"] / name / "memory.oom_control"), re.M))
        return bool(re.search(r"^oom_kill [1-9]", _read(self.bases["memory"] / name / "memory.events"), re.M))

    def remove(self, name: str) -> None:
        """Remove an ended worker's group (its process has been reaped, so the group is empty)."""
        for base in set(self.bases.values()):
            with contextlib.suppress(OSError):
                (base / name).rmdir()

    def close(self) -> None:
        for base in set(self.bases.values()):
            _remove_tree(base)

    def _limits_v1(self, name: str, walls: Walls) -> None:
        memory = self.bases["memory"] / name
        _write(memory / "memory.limit_in_bytes", str(walls.memory_bytes))
        with contextlib.suppress(OSError):  # only where swap is accounted
            _write(memory / "memory.memsw.limit_in_bytes", str(walls.memory_bytes))
        _write(self.bases["pids"] / name / "pids.max", str(walls.tasks))
        cpu = self.bases["cpu"] / name
        _write(cpu / "cpu.cfs_period_us", str(_PERIOD_US))
        _write(cpu / "cpu.cfs_quota_us", str(int(walls.cpus * _PERIOD_US)))
        _write(cpu / "cpu.shares", "256")  # a quarter of a grader's weight (1024)

    def _limits_v2(self, name: str, walls: Walls) -> None:
        group = self.bases["memory"] / name
        _write(group / "memory.max", str(walls.memory_bytes))
        with contextlib.suppress(OSError):
            _write(group / "memory.swap.max", "0")
        _write(group / "pids.max", str(walls.tasks))
        _write(group / "cpu.max", f"{int(walls.cpus * _PERIOD_US)} {_PERIOD_US}")
        _write(group / "cpu.weight", "25")  # a quarter of a grader's weight (100)


def _mounts() -> dict[str, Path]:
    """Where each controller's v1 hierarchy is mounted, and the v2 hierarchy as "cgroup2"."""
    found: dict[str, Path] = {}
    for line in _read(Path("/proc/self/mounts")).splitlines():
        fields = line.split()
        if len(fields) < 4:
            continue
        if fields[2] == "cgroup2":
            found.setdefault("cgroup2", Path(fields[1]))
        elif fields[2] == "cgroup":
            for option in fields[3].split(","):
                if option in CONTROLLERS:
                    found.setdefault(option, Path(fields[1]))
    return found


def _own_path(controller: str) -> str:
    """This process's group in a controller's v1 hierarchy (from /proc/self/cgroup)."""
    for line in _read(Path("/proc/self/cgroup")).splitlines():
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path
    return "/"


def _sweep(parent: Path) -> None:
    """Remove the folders a zygote that was killed left behind (their processes are gone)."""
    with contextlib.suppress(OSError):
        for entry in parent.iterdir():
            match = _OWNED.match(entry.name)
            if match and not _alive(int(match["pid"])):
                _remove_tree(entry)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return "Z" not in _read(Path(f"/proc/{pid}/stat")).rsplit(")", 1)[-1][:3]


def _remove_tree(base: Path) -> None:
    """rmdir a group's folder and its children's (a cgroup folder is removed empty, never its files):
    what still runs in them is killed first, and given a moment to be gone."""
    children = [child for child in _entries(base) if child.is_dir()]
    for child in children:
        for pid in _read(child / "cgroup.procs").split():
            with contextlib.suppress(OSError):
                os.kill(int(pid), signal.SIGKILL)
    deadline = time.monotonic() + 2.0
    while any(_read(child / "cgroup.procs").strip() for child in children) and time.monotonic() < deadline:
        time.sleep(0.01)
    for child in children:
        with contextlib.suppress(OSError):
            child.rmdir()
    with contextlib.suppress(OSError):
        base.rmdir()


def _entries(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _write(path: Path, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)
