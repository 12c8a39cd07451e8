"""How a worker is confined: planned by the grader, entered by the worker, reported back.

The worker takes these steps, in this order, before any student code runs:

0. a cgroup of its own where the zygote may make one (cgroups.py: memory that counts
   everything, a cap on tasks, at most one CPU), and the OOM killer's first choice;
1. its own session and process group, standard streams to /dev/null and its log, every
   other inherited file closed, an environment with nothing of the grader's (no tokens),
   resource limits (core dumps, file size, open files, address space);
2. as root: a private mount namespace that shows only its reach (namespace_view.py), its
   scratch folder a size-capped tmpfs, a copy of the submission its new user may read, then
   the unprivileged `worker_user` (or, where no cgroup caps its tasks, a user of its own with
   RLIMIT_NPROC: the kernel counts that limit per user);
3. no capability in any set, no_new_privs (privileges.py);
4. death with its parent (PR_SET_PDEATHSIG, set again after the user changed, which clears it);
5. Landlock: reads of its reach only, writes in its scratch folder only, no TCP, no
   abstract sockets, no signals out (landlock.py);
6. last, the seccomp filter: no process, no socket, no reaching other processes (syscall_filter.py).

It then reports what holds. A worker that was required to be confined and is not stops
there, before the import. `--sandbox-without` leaves steps out, to test what remains.
"""

from __future__ import annotations

import dataclasses
import enum
import os
import resource
import shutil
import signal
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graders.sandbox import landlock, namespace_view, privileges, syscall_filter
from graders.sandbox.budget import Budget
from graders.sandbox.cgroups import Groups, NoCgroups, NoCgroupsReason, Walls
from graders.sandbox.reach import installation, worker_reach

STEPS = ("namespace", "landlock", "seccomp", "user", "cgroups")  # what --sandbox-without may leave out
KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
_PR_SET_PDEATHSIG = 1
NICENESS = 10
_MAX_COPIED_FILES = 200
_MAX_COPIED_BYTES = 8 * 2**20
_MAX_FILE_BYTES = 16 * 2**20


class Gap(enum.StrEnum):
    """What keeps a worker from counting as confined (the engine words each: graders/engine/sandbox_words.py)."""

    NO_LANDLOCK = "no_landlock"  # and no namespace view: files outside the sandbox are open to it
    NO_NETWORK_RULES = "no_network_rules"  # no namespace view, and a Landlock ABI below 4
    NO_SECCOMP = "no_seccomp"
    STILL_ROOT = "still_root"  # root with no namespace view to switch to an unprivileged user
    CAPABILITIES_LEFT = "capabilities_left"  # Confinement.capabilities_left says which
    IN_PROCESS = "in_process"  # --in-process: no sandbox at all
    UNREADABLE_REPORT = "unreadable_report"  # the worker's report could not be read


class WorkerUser(enum.StrEnum):
    """Whom a worker runs as."""

    UNPRIVILEGED = "unprivileged"  # the worker user it switched to
    ROOT = "root"
    GRADER = "grader"  # the grader's own (unprivileged) user
    GRADER_PROCESS = "grader_process"  # no worker: the grader's own process (--in-process)


@dataclass(frozen=True)
class WallsHeld:
    """What counts a worker's resources: its cgroup, or the rlimits it falls back to, and its scratch folder."""

    cgroup_version: int = 0  # 0: no cgroup of its own
    no_cgroups: NoCgroups | None = None  # where cgroup_version is 0, why (the fact cgroups.Groups.find returned)
    memory_mb: int = 0
    tasks: int = 0
    cpus: float = 0.0
    own_user: bool = False  # no cgroup counts its tasks: a user of its own, whose RLIMIT_NPROC is its alone
    scratch_tmpfs: bool = False  # its scratch folder is a size-capped tmpfs (a namespace view of its own)
    scratch_mb: int = 0
    max_file_mb: int = 0  # the largest file it may write, where scratch is not size-capped

    def to_wire(self) -> dict[str, Any]:
        why = self.no_cgroups
        return {**dataclasses.asdict(self), "no_cgroups": None if why is None else
                {"reason": str(why.reason), "path": why.path, "error": why.error}}

    @classmethod
    def from_wire(cls, data: Any) -> "WallsHeld | None":
        """Walls read off the wire; None where they do not read (not a dict, or a reason that is not plain strings
        of a known code): a worker's report is trusted for nothing."""
        if not isinstance(data, dict):
            return None
        kinds = {f.name: f.type for f in dataclasses.fields(cls) if f.name != "no_cgroups"}
        taken = {name: data[name] for name, kind in kinds.items() if name in data and _is(data[name], kind)}
        why = data.get("no_cgroups")
        if why is None:
            return cls(**taken)
        fields = ("reason", "path", "error")
        if (type(why) is not dict or not all(type(why.get(name, "")) is str for name in fields)
                or why.get("reason") not in {str(reason) for reason in NoCgroupsReason}):
            return None
        return cls(**taken, no_cgroups=NoCgroups(NoCgroupsReason(why["reason"]), why.get("path", "")[:200],
                                                 why.get("error", "")[:200]))


@dataclass(frozen=True)
class Confinement:
    """What confines a worker, as facts (the walls up and what is missing for it to count as confined); the
    engine words them (graders/engine/sandbox_words.py: confinement_summary)."""

    namespace_view: bool = False
    landlock_abi: int = 0  # 0: no Landlock
    seccomp: bool = False
    user: WorkerUser = WorkerUser.GRADER
    gaps: tuple[Gap, ...] = ()
    capabilities_left: tuple[tuple[str, int], ...] = ()  # (the set, e.g. "CapEff", its mask), for CAPABILITIES_LEFT
    walls: WallsHeld | None = None  # what counts its resources; None where no worker reported it (a plan)

    @property
    def confined(self) -> bool:
        return not self.gaps

    def to_wire(self) -> dict[str, Any]:
        return {"namespace_view": self.namespace_view, "landlock_abi": self.landlock_abi, "seccomp": self.seccomp,
                "user": str(self.user), "gaps": [str(gap) for gap in self.gaps],
                "capabilities_left": [list(pair) for pair in self.capabilities_left],
                "walls": self.walls.to_wire() if self.walls else None}

    @classmethod
    def from_wire(cls, data: Any) -> "Confinement":
        """A worker's report, trusting nothing in it: a report that does not read is a gap of its own."""
        data = data if isinstance(data, dict) else {}
        gaps, user = data.get("gaps"), data.get("user")
        known = {str(gap) for gap in Gap}
        if (type(gaps) is not list or not all(type(gap) is str and gap in known for gap in gaps)
                or type(user) is not str or user not in {str(u) for u in WorkerUser}):
            return cls(gaps=(Gap.UNREADABLE_REPORT,))
        capabilities = data.get("capabilities_left")
        pairs = tuple((name[:20], mask) for name, mask in (p for p in capabilities if type(p) is list and len(p) == 2)
                      if type(name) is str and type(mask) is int) if type(capabilities) is list else ()
        abi = data.get("landlock_abi")
        return cls(data.get("namespace_view") is True, abi if type(abi) is int and 0 <= abi < 100 else 0,
                   data.get("seccomp") is True, WorkerUser(user), tuple(Gap(gap) for gap in gaps), pairs,
                   WallsHeld.from_wire(data.get("walls")))


def _is(value: Any, kind: str) -> bool:
    """Whether a value read off the wire is of a field's type (named, as annotations are here: PEP 563)."""
    return type(value) in {"int": (int,), "str": (str,), "bool": (bool,), "float": (int, float)}[kind]


def plan(without: frozenset[str] = frozenset()) -> Confinement:
    """What the workers of this process will have, judged from the machine without forking."""
    root = os.geteuid() == 0
    abi = landlock.abi_version() if "landlock" not in without else 0
    view = root and "namespace" not in without and hasattr(os, "fork")
    seccomp = syscall_filter.available() and "seccomp" not in without
    switch = root and view and "user" not in without
    return _judge(view=view, abi=abi, seccomp=seccomp, root=root, switched=switch, capabilities={})


def _judge(*, view: bool, abi: int, seccomp: bool, root: bool, switched: bool,
           capabilities: dict[str, int]) -> Confinement:
    gaps = []
    if not view and not abi:
        gaps.append(Gap.NO_LANDLOCK)
    elif not view and abi < 4:
        gaps.append(Gap.NO_NETWORK_RULES)
    if not seccomp:
        gaps.append(Gap.NO_SECCOMP)
    if root and not switched:
        gaps.append(Gap.STILL_ROOT)
    # The bounding set counts only for root: an unprivileged user cannot gain what it bounds.
    kept = tuple(sorted((k, v) for k, v in capabilities.items() if k != "CapBnd" or root))
    if kept:
        gaps.append(Gap.CAPABILITIES_LEFT)
    user = WorkerUser.UNPRIVILEGED if switched else WorkerUser.ROOT if root else WorkerUser.GRADER
    return Confinement(view, abi, seccomp, user, tuple(gaps), kept)


# ---------------------------------------------------------------- the worker's side

@dataclass(frozen=True)
class WorkerFolder:
    """The private folder the grader makes for one worker: scratch (its working folder),
    view (the mount point of its namespace view) and code (the copy of its submission)."""

    root: Path

    @property
    def scratch(self) -> Path:
        return self.root / "scratch"

    @property
    def view(self) -> Path:
        return self.root / "view"

    @property
    def code(self) -> Path:
        return self.root / "code"

    def make(self) -> None:
        for folder in (self.scratch, self.view):
            folder.mkdir(parents=True, exist_ok=True)


def enter(channel: socket.socket, folder: WorkerFolder, code: Path, budget: Budget, *, without: frozenset[str],
          groups: object, number: int) -> Confinement:
    """Confine this (forked, single-threaded) process for good, able to read the submission's
    folder `code`, within `budget`; returns what holds. `groups` is where its cgroup may be made
    (cgroups.Groups), or why not (cgroups.NoCgroups): then its walls fall back to rlimits and a user of its own."""
    walls = Walls(budget.memory_mb * 2**20, budget.tasks, budget.cpus)
    parent = os.getppid()
    if "cgroups" in without:
        groups = NoCgroups(NoCgroupsReason.LEFT_OUT)
    counted = groups.enter(f"w{number}", walls) if isinstance(groups, Groups) else False
    _first_to_go()
    os.setsid()
    _streams(channel, folder.scratch)
    _environment(folder.scratch)
    _limits(budget.memory_mb, budget.output_kb)
    root = os.geteuid() == 0
    reach = worker_reach(code, folder.scratch, os.getpid())
    switching = root and "namespace" not in without and "user" not in without
    # With no cgroup to count its tasks, a worker runs as a user of its own, so that RLIMIT_NPROC
    # counts its threads alone (nobody's count would be every worker's together).
    own_user = (budget.worker_uids + number % 10_000,) * 2
    uid, gid = (privileges.user_ids(budget.worker_user) if counted else own_user) if switching \
        else (os.getuid(), os.getgid())
    view = False
    if root and "namespace" not in without:
        sources = {}
        if "user" not in without:
            sources[code.resolve()] = _copy_submission(code, folder.code)
        try:
            namespace_view.enter(reach, folder.view, sources, scratch=(budget.scratch_mb, uid, gid))
            view = True
        except OSError:
            view = False
    switched = False
    if switching and view:
        os.chown(folder.scratch, uid, gid)
        for entry in folder.scratch.iterdir():
            os.chown(entry, uid, gid)
        privileges.drop_bounding_set()  # while still root: it takes CAP_SETPCAP
        switched = privileges.become(uid, gid)
    if not counted:
        _limit_tasks(walls.tasks, own_user=switched)
    capabilities = privileges.drop_capabilities()
    _die_with(parent)
    os.chdir(folder.scratch)
    abi = 0 if "landlock" in without else landlock.restrict(list(reach.readable), list(reach.writable),
                                                            list(reach.devices))
    seccomp = "seccomp" not in without and syscall_filter.confine(os.getpid())
    held = _judge(view=view, abi=abi, seccomp=seccomp, root=root, switched=switched, capabilities=capabilities)
    return dataclasses.replace(held, walls=_walls_held(counted, groups, walls, switched, view, budget.scratch_mb))


def _walls_held(entered: bool, groups: object, walls: Walls, own_user: bool, view: bool,
                scratch_mb: int) -> WallsHeld:
    """What counts this worker's resources: its cgroup where it entered one, else the fallbacks (and why, as a fact)."""
    version = groups.version if entered and isinstance(groups, Groups) else 0
    why = None if version else (groups if isinstance(groups, NoCgroups) else NoCgroups(NoCgroupsReason.NOT_ENTERED))
    return WallsHeld(version, why, walls.memory_bytes // 2**20, walls.tasks, walls.cpus, own_user, view, scratch_mb,
                     _MAX_FILE_BYTES // 2**20)


def _first_to_go() -> None:
    """Make this worker the OOM killer's first choice: under memory pressure, never the grader."""
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write("1000")
    except OSError:
        pass


def _limit_tasks(tasks: int, *, own_user: bool) -> None:
    """RLIMIT_NPROC where no cgroup counts tasks: `tasks` for a user of its own; otherwise as many as its
    user has now plus `tasks` (the kernel counts every process and thread of the user, and waives the
    limit for root, which a worker that keeps root has no cgroup nor user switch to stop anyway)."""
    limit = tasks if own_user else _user_tasks(os.getuid()) + tasks
    _set_limit(resource.RLIMIT_NPROC, limit)


def _user_tasks(uid: int) -> int:
    """The threads of every process of a user, as the kernel counts them for RLIMIT_NPROC."""
    count = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                count += int(Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()[17])
        except (OSError, IndexError, ValueError):
            continue
    return count


def warm_paths() -> None:
    """Work out the installation's paths in the grader, once, before any worker is forked."""
    installation()


def _streams(channel: socket.socket, scratch: Path) -> None:
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGPIPE):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an over-long write fails instead of killing
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    log = os.open(scratch / "output.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    keep = sorted({0, 1, 2, channel.fileno()})
    for low, high in zip(keep, keep[1:] + [_max_fd()]):
        os.closerange(low + 1, high)


def _environment(scratch: Path) -> None:
    """Nothing of the grader's environment (it may hold tokens); home and temp in scratch."""
    kept = {name: os.environ[name] for name in KEPT_ENVIRONMENT if name in os.environ}
    os.environ.clear()
    # USER and LOGNAME: getpass.getuser() (torch's cache folders ask it) would otherwise look
    # the uid up in /etc/passwd, which a worker may not read.
    os.environ.update(kept, HOME=str(scratch), TMPDIR=str(scratch), USER="student", LOGNAME="student",
                      TORCHINDUCTOR_CACHE_DIR=str(scratch / "torch-cache"), OMP_NUM_THREADS="1", MPLBACKEND="Agg")


def _limits(memory_mb: int, output_kb: int) -> None:
    # Lower priority: student code that spins (an endless loop waiting for its time limit) then
    # takes only what the graders leave, and it may not raise its priority again.
    os.nice(NICENESS)
    _set_limit(resource.RLIMIT_CORE, 0)
    _set_limit(resource.RLIMIT_FSIZE, max(_MAX_FILE_BYTES, 16 * output_kb * 1024))
    _set_limit(resource.RLIMIT_NOFILE, 256)  # torch and a student's code need a handful; files are no store
    mapped = _mapped_bytes()
    if mapped:
        _set_limit(resource.RLIMIT_AS, mapped + memory_mb * 2**20)


def _copy_submission(folder: Path, copy: Path) -> Path:
    """The submission folder's files, copied where the worker's unprivileged user may read them."""
    copy.mkdir(mode=0o755, exist_ok=True)
    total = 0
    try:
        entries = sorted(folder.iterdir())[:_MAX_COPIED_FILES]
    except OSError:
        entries = []
    for entry in entries:
        try:
            if entry.is_file() and not entry.is_symlink() and total + entry.stat().st_size <= _MAX_COPIED_BYTES:
                total += entry.stat().st_size
                shutil.copyfile(entry, copy / entry.name)
                os.chmod(copy / entry.name, 0o644)
        except OSError:
            continue
    os.chmod(copy, 0o755)
    return copy


def _die_with(parent: int) -> None:
    """Die with the process that forked us (the zygote): set after any change of user, which clears it."""
    import ctypes

    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the parent died before the line above took effect
        os._exit(1)


def _set_limit(kind: int, value: int) -> None:
    soft, hard = resource.getrlimit(kind)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(kind, (value, value))


def _mapped_bytes() -> int:
    """Address space torch and Python already map; the memory limit comes on top of it."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _max_fd() -> int:
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return soft if soft != resource.RLIM_INFINITY else 4096
