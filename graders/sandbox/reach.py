"""Which files a worker may reach: the one list both Landlock and the namespace view enforce.

A worker may read the Python installation (the standard library, site-packages and the
folders of the shared libraries already loaded, for the modules torch and Python load
lazily), its submission's own folder, a few facts about the machine, and its own /proc
entry; it may write only in its scratch folder. It may not read this project (the
reference, the checks, course_config.py), other submissions, the course folder or the
user's home: where the project is installed inside site-packages, the rules leave it out.
"""

from __future__ import annotations

import functools
import importlib.util
import os
import site
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
MACHINE_FACTS = ("/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/filesystems",
                 "/sys/devices/system/cpu", "/sys/fs/cgroup/cpu.max", "/etc/localtime")


@dataclass(frozen=True)
class Reach:
    """The paths of one worker, as real paths (symbolic links resolved)."""

    readable: tuple[Path, ...]
    writable: tuple[Path, ...]
    devices: tuple[Path, ...]


def worker_reach(module_folder: Path, scratch: Path, pid: int) -> Reach:
    readable = [*installation(), module_folder.resolve(), *_existing(MACHINE_FACTS), Path(f"/proc/{pid}")]
    return Reach(tuple(dict.fromkeys(readable)), (scratch.resolve(),), tuple(_existing(DEVICES)))


@functools.cache
def installation() -> tuple[Path, ...]:
    """The Python installation and the folders of its loaded libraries, without this project.

    Computed once per process, in the grader, before any worker is forked."""
    folders = {sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    folders.update(site.getsitepackages())
    if site.ENABLE_USER_SITE and site.getusersitepackages() in sys.path:
        folders.add(site.getusersitepackages())
    folders.update(_library_folders())
    real = {Path(f).resolve() for f in folders if f and os.path.isdir(f)}
    inside = [p for p in real if not any(other != p and other in p.parents for other in real)]
    return tuple(sorted(without(inside, project_files())))


def project_files() -> list[Path]:
    """This project's own code where it is installed: the engine package and course_config.py.

    Found without importing course_config: the zygote computes this too, and must not hold the
    manifest (its hidden checks' names and seeds)."""
    engine = Path(__file__).resolve().parent.parent  # graders/ (nbchecks/ in a student bundle)
    try:
        manifest = importlib.util.find_spec("course_config")
    except (ImportError, ValueError):
        manifest = None
    found = [Path(manifest.origin).resolve()] if manifest is not None and manifest.origin else []
    return [engine, *found]


def without(folders: list[Path], excluded: list[Path]) -> list[Path]:
    """The same folders, split into their entries wherever an excluded path lies inside one."""
    kept: list[Path] = []
    for folder in folders:
        inner = [e for e in excluded if folder in e.parents]
        if not inner:
            kept.append(folder)
            continue
        try:
            entries = sorted(folder.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry in inner:
                continue
            if entry.is_dir() and any(entry in e.parents for e in inner):
                kept += without([entry], inner)
            else:
                kept.append(entry)
    return kept


def _library_folders() -> set[str]:
    """Folders of the shared libraries mapped into this process (libc, libgomp, torch's own)."""
    folders = set()
    try:
        for line in Path("/proc/self/maps").read_text().splitlines():
            path = line.split(maxsplit=5)[5] if line.count(" ") >= 5 else ""
            if path.startswith("/") and ".so" in path:
                folders.add(os.path.dirname(path))
    except (OSError, IndexError):
        pass
    return folders


def _existing(paths: tuple[str, ...]) -> list[Path]:
    return [Path(p).resolve() for p in paths if os.path.exists(p)]
