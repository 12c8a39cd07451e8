"""The batch against its floor: what grading a submission costs beyond the reference's own work, in one run.

    python benchmarks/batch_floor.py [--students 30] [--repeat 3] [--quick] [--keep]

The floor is the CPU-seconds of the checks' own calls of the reference for one whole submission, run directly in
one process with nothing of the grader: no pytest, no sandbox, no fork. The calls are the ones the engine notes
(graders/engine/single_edits.py, as graders/engine/shipped_mutants.py gathers them: the reference graded in a
process of its own, every call of a student's function noted with its arguments). What those notes leave out is
gathered beside them and timed apart: the drivers the checks run in the worker (`Student.run`), calls that raised
on purpose, and calls answered from an earlier check's answer (`reuse`: run once, noted again). The floor is
timed in a fresh process, one torch thread as in a grading service, `--repeat` passes, the median kept.

Beside it, in the same run, a class of N copies of the reference is graded by `python -m graders grade`: with one
worker (`-j 1`) for the CPU-seconds per submission, every process of the run counted, start-up included; with two
(`-j 2`) for the wall per submission, against floor / 2 cores. Both start from the reference's values kept by a
first, untimed run (an instructor's later runs do). The ratios are printed against issue 45's goals.

Where the rest goes, from measurements: a watcher reads each process of the batch's tree from /proc (the batch
itself, the template, the grading services, their zygotes, the sandboxed workers, the similarity process), and a
second, small class graded alike gives each part's start-up apart from its cost per submission. One submission is
then graded in this benchmark's own child process through the grading service's own code (service.py's Service),
under cProfile timed in CPU, which splits the service's side into pytest, the checks, the comparisons, the wire
and the forks, and counts the round trips and the workers started; then once more with its zygote forked after
the reference's own calls ran, to see what workers forked from a warmed torch would save (an experiment only: such
a zygote would hold the reference). What none of these sees is "unattributed".
"""

from __future__ import annotations

import argparse
import collections
import copy
import cProfile
import importlib
import json
import os
import pickle
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CPU_GOAL, WALL_GOAL = 1.3, 1.5  # issue 45: batch CPU / floor, batch wall / (floor / cores)
CORES = 2  # the wall goal's cores: the batch's -j 2
TICK = os.sysconf("SC_CLK_TCK")
SMALL = 2  # the small class, whose run tells start-up from the cost per submission


def _lesson() -> Any:
    """The lesson graded, imported only when asked: a process that has loaded course_config cannot fork its zygote
    (graders/sandbox/zygote.py's nothing_of_the_grading), and the profiled one must, as a service does."""
    import course_config

    return course_config.LESSON_01


# ----------------------------------------------------------------------------- the floor: gathering the calls

@dataclass
class Call:
    """One call the checks make of the reference's code while grading it, as the floor runs it again."""

    kind: str  # "noted" (the engine's notes), "driver", "raised", "reused"
    lesson: str
    slug: str
    target: str  # the reference's function, or a driver's "module:qualname"
    args: tuple
    kwargs: dict
    worker_seconds: float  # what the sandboxed worker measured the call at, on the clock


def _gather(path: Path) -> None:
    """Grade the reference in this process as shipped_mutants.py does, and write every call of it to `path`."""
    from graders.engine import shipped_mutants, single_edits
    from graders.engine.student import Student

    reused: set[int] = set()  # the engine's notes of calls answered from an earlier check's answer
    seconds: dict[int, float] = {}  # a noted call's worker seconds, by its note
    extra: list[Call] = []
    original_call, original_run = Student.call, Student.run
    call_options = set(_keyword_parameters(original_call))
    run_options = set(_keyword_parameters(original_run))

    def call(self: Student, function: str, *args: Any, **options: Any) -> Any:
        stored = len(self._answers)
        kwargs = {k: v for k, v in options.items() if k not in call_options}
        sent = copy.deepcopy((args, kwargs))  # as they left for the worker: a check may change its own copies later
        returned = original_call(self, function, *args, **options)
        where = (self.module_path.parent.name, self.module_path.stem)
        if returned.error is not None:  # not noted by the engine: the reference raised, as the check wanted
            extra.append(Call("raised", *where, function, *sent, returned.seconds))
            return returned
        note = single_edits.NOTES.inputs[-1]  # the note this call just made
        seconds[id(note)] = returned.seconds
        # `reuse`: answered from the Student's store of answers, which grew only where the call ran.
        if options.get("reuse") and len(self._answers) == stored:
            reused.add(id(note))
        return returned

    def run(self: Student, driver: Any, *args: Any, **options: Any) -> Any:
        kwargs = {k: v for k, v in options.items() if k not in run_options}
        sent = copy.deepcopy((args, kwargs))
        returned = original_run(self, driver, *args, **options)
        extra.append(Call("driver", self.module_path.parent.name, self.module_path.stem,
                          f"{driver.__module__}:{driver.__qualname__}", *sent, returned.seconds))
        return returned

    Student.call, Student.run = call, run  # type: ignore[method-assign]
    try:
        noted = shipped_mutants._inputs(_lesson().folder, [e.slug for e in _lesson().exercises])
    finally:
        Student.call, Student.run = original_call, original_run  # type: ignore[method-assign]
    calls: list[Call] = []
    unbound = 0
    for slug, checks in noted.items():
        reference = single_edits.reference_module(_lesson().folder, slug)
        for inputs in checks.values():
            for note in inputs:
                bound = single_edits.arguments(reference, note) if reference is not None else None
                if bound is None:  # the reference has no such function, or the call does not fit it
                    unbound += 1
                    continue
                kind = "reused" if id(note) in reused else "noted"
                calls.append(Call(kind, note.lesson, note.slug, note.function, (), bound, seconds.get(id(note), 0.0)))
    kept, unpicklable = [], 0
    for one in calls + extra:
        try:
            pickle.dumps(one)
        except Exception:  # noqa: BLE001 - a value that cannot travel to the floor's process is counted, not run
            unpicklable += 1
            continue
        kept.append(one)
    path.write_bytes(pickle.dumps({"calls": kept, "unbound": unbound, "unpicklable": unpicklable}))


def _keyword_parameters(method: Any) -> list[str]:
    """The grader's own keyword options of Student.call / Student.run (shown_as, trace, reuse...): the rest of a
    call's keywords are the student function's."""
    import inspect

    return [name for name, p in inspect.signature(method).parameters.items() if p.kind is p.KEYWORD_ONLY]


# ----------------------------------------------------------------------------- the floor: running them

def _floor(path: Path, repeat: int) -> None:
    """Run the gathered calls directly, `repeat` passes after a first; print each pass's CPU-seconds by kind, and a
    pass in a fork of this warmed process, as JSON."""
    import torch

    torch.set_num_threads(1)  # as a grading service does (service.py): one thread each
    from graders.engine import single_edits

    gathered = pickle.loads(path.read_bytes())
    calls: list[Call] = gathered["calls"]
    started = time.process_time()
    modules = {(c.lesson, c.slug): single_edits.reference_module(c.lesson, c.slug) for c in calls}
    imports = time.process_time() - started
    # A sandboxed worker is a fork of a zygote that has imported torch: a pass in a fork of this process before it
    # ran any call, and one in a fork after, show what a worker pays for torch's first calls and what forking
    # itself costs (threads are not forked: torch's autograd starts its own again).
    unwarmed = _forked_pass(calls, modules)
    # The first pass is a cold process's: torch's first call of each operation sets it up.
    passes = [_pass(calls, modules) for _ in range(repeat + 1)]
    forked = _forked_pass(calls, modules)
    print(json.dumps({"passes": [spent for spent, _ in passes], "forked": forked, "unwarmed": unwarmed,
                      "imports": imports,
                      "failed": sum(failed for _, failed in passes),
                      "counts": collections.Counter(c.kind for c in calls),
                      "worker_seconds": {kind: sum(c.worker_seconds for c in calls if c.kind == kind)
                                         for kind in ("noted", "driver", "raised", "reused")},
                      "unbound": gathered["unbound"], "unpicklable": gathered["unpicklable"]}))


def _forked_pass(calls: list[Call], modules: dict[tuple[str, str], Any]) -> dict[str, float]:
    """A pass run in a fork of this process: its CPU-seconds by kind."""
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(reading)
        os.write(writing, json.dumps(_pass(calls, modules)[0]).encode())
        os._exit(0)
    os.close(writing)
    with os.fdopen(reading) as pipe:
        spent = json.loads(pipe.read())
    os.waitpid(child, 0)
    return spent


def _pass(calls: list[Call], modules: dict[tuple[str, str], Any]) -> tuple[dict[str, float], int]:
    """One pass of every call: the CPU-seconds by kind, and how many calls failed that should not have."""
    spent: dict[str, float] = collections.defaultdict(float)
    failed = 0
    for one in calls:
        module = modules[(one.lesson, one.slug)]
        if one.kind == "driver":
            owner, _, name = one.target.partition(":")
            target, args = getattr(importlib.import_module(owner), name), (module, *copy.deepcopy(one.args))
        else:
            target, args = getattr(module, one.target), copy.deepcopy(one.args)
        kwargs = copy.deepcopy(one.kwargs)  # copied before the clock starts: a call may change its arguments
        begun = time.process_time()
        try:
            target(*args, **kwargs)
        except Exception:  # noqa: BLE001 - "raised" calls raise by design; any other failure is counted
            failed += one.kind != "raised"
        spent[one.kind] += time.process_time() - begun
    return dict(spent), failed


# ----------------------------------------------------------------------------- one submission, profiled

def _profile(folder: Path, out: Path, warm: Path | None) -> None:
    """Grade a copy of the reference through the grading service's own code, as a service does it, and write what
    the service's side spent by part (CPU, from cProfile), the workers' CPU and the counts, to `out`. With `warm`
    (the gathered calls), the reference's own calls run first, so that the zygote is forked from a process whose
    torch has run them: an experiment that bounds what a warmed zygote would save, never a way to grade (the
    zygote, and every worker, would hold the reference)."""
    log = os.open(folder / "service.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 1)  # pytest's output goes to a log, as in a service
    import gc

    import torch

    if warm is not None:
        torch.set_num_threads(1)  # before any operation: a process with a thread pool must not fork
        _warm_up(warm)
    from graders.sandbox import ZYGOTE

    ZYGOTE.start(fork=True)  # service.py's order: the zygote before anything of the grading is loaded
    forked_zygote = type(ZYGOTE.process).__name__ == "_Forked"
    torch.set_num_threads(1)
    gc.set_threshold(10_000, 10, 10)
    from graders.frontends.grade.run.service import Service

    service = Service("")
    lesson = _lesson()
    slugs = [e.slug for e in lesson.exercises]
    values = service._reference({"lesson": lesson.folder, "slugs": slugs})["values"]
    expected = folder / "expected.json"
    expected.write_text(json.dumps(values, sort_keys=True), encoding="utf-8")
    sources = {slug: (ROOT / "reference" / lesson.folder / f"{slug}.py").read_text() for slug in slugs}
    request = {"op": "grade", "student": "s", "lesson": lesson.folder, "slugs": slugs, "sources": sources,
               "expected": str(expected)}
    service._grade(request)  # once unprofiled: what a service's first submission warms (imports, caches)
    inside = _tally_replies()
    workers_before, own_before = _zygote_cpu(ZYGOTE.pid), time.process_time()
    service._grade(request)  # once more, timed: cProfile's own cost inflates the profiled run below
    plain = time.process_time() - own_before
    time.sleep(0.5)  # the zygote reaps the submission's last worker
    plain_workers = [after - before for after, before in zip(_zygote_cpu(ZYGOTE.pid), workers_before)]
    replies = dict(inside)
    profile = cProfile.Profile(time.process_time)
    own_before = time.process_time()
    profile.enable()
    service._grade(request)
    profile.disable()
    own = time.process_time() - own_before
    profile.dump_stats(folder / "service.prof")  # for a closer look: python -m pstats service.prof
    stats = pstats.Stats(profile)
    out.write_text(json.dumps({"own": own, "plain": plain, "plain_workers": plain_workers, "replies": replies,
                               "forked_zygote": forked_zygote,
                               "parts": _parts(stats), "counts": _counts(stats)}))


def _warm_up(path: Path) -> None:
    """Run the gathered calls of the reference's own functions (not the drivers: they are the grader's modules, and
    the zygote must be forked from a process that loaded none), each reference module executed from its file."""
    import types

    modules: dict[tuple[str, str], types.ModuleType] = {}
    for one in pickle.loads(path.read_bytes())["calls"]:
        if one.kind == "driver":
            continue
        key = (one.lesson, one.slug)
        if key not in modules:
            file = ROOT / "reference" / one.lesson / f"{one.slug}.py"
            modules[key] = types.ModuleType(f"warm_{one.slug}")
            exec(compile(file.read_text(encoding="utf-8"), str(file), "exec"), modules[key].__dict__)  # noqa: S102
        try:
            getattr(modules[key], one.target)(*copy.deepcopy(one.args), **copy.deepcopy(one.kwargs))
        except Exception:  # noqa: BLE001 - some raise by design; a warm-up only needs torch to have run them
            pass


def _zygote_cpu(pid: int) -> tuple[float, float]:
    """The zygote's CPU-seconds with its reaped workers': in user mode, in the kernel (forks, page faults, sockets)."""
    fields = [int(v) for v in Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11:15]]
    return (fields[0] + fields[2]) / TICK, (fields[1] + fields[3]) / TICK


def _tally_replies() -> collections.Counter:
    """From now on, the seconds each worker's replies say their request took, by the request's kind (the worker
    times a call, a driver's run or an import on its clock, tracing included): what of the workers' CPU the
    requests themselves hold."""
    from graders.sandbox import Status, process

    tally: collections.Counter = collections.Counter()
    original = process.outcome_from_reply

    def counted(reply: Any) -> Any:
        outcome = original(reply)
        kind = "imports" if outcome.status in (Status.READY, Status.IMPORT_FAILED) else "calls and runs"
        if isinstance(reply, dict) and reply.get("trace"):
            kind = "traced calls and runs"  # the worker recorded torch's calls (the Recorder) while it ran
        tally[kind] += float(reply.get("seconds", 0.0)) if isinstance(reply, dict) else 0.0
        tally[f"{kind} (count)"] += 1
        return outcome

    process.outcome_from_reply = counted  # process.py looks the name up in its own module at each reply
    return tally


# Where a function's own CPU goes, by the file it is in (the first that matches).
PARTS = [
    ("pytest (collection, fixtures, reports, hooks)", ("/_pytest/", "/pluggy/", "/iniconfig/", "/py.py")),
    ("the wire (packing, sockets, the leases)", ("/graders/sandbox/wire.py", "/graders/sandbox/process.py",
                                                 "/graders/sandbox/shared.py", "/graders/sandbox/ahead.py",
                                                 "socket.py", "selectors.py")),
    ("forks and the zygote", ("/graders/sandbox/zygote.py", "/graders/sandbox/forking.py",
                              "/graders/sandbox/fork_server.py", "/graders/sandbox/scratch.py",
                              "/graders/sandbox/cgroups.py", "subprocess.py")),
    ("the comparisons", ("/graders/engine/compare.py", "/graders/engine/expect.py", "/graders/engine/fingerprint.py",
                         "/graders/engine/kept_values.py")),
    ("the checks' own code (cases, drivers' hosts)", ("/graders/lesson", "/graders/engine/case_recipes.py",
                                                       "/graders/engine/shipped_cases.py", "/graders/engine/drawing.py")),
    ("explanations (mistakes, single edits, feedback)", ("/graders/engine/mistakes.py", "/graders/engine/causes.py",
                                                         "/graders/engine/single_edits.py", "/graders/engine/feedback.py",
                                                         "/graders/engine/failure_reports.py")),
    ("results and plots (JSON, the outputs of one submission)", ("/graders/engine/results.py", "/graders/engine/plots.py",
                                                                 "/graders/engine/check_results.py", "/json/",
                                                                 "/matplotlib/")),
    ("reading the student's source (source_evidence: its AST)", ("/graders/engine/source_evidence.py",)),
    ("the rest of the engine and plugin", ("/graders/",)),
    ("torch, in the grader", ("/torch/",)),
]


LIBRARY = "Python's library, called from no part above"


def _part(filename: str) -> str:
    return next((name for name, marks in PARTS if any(mark in filename for mark in marks)), LIBRARY)


def _parts(stats: pstats.Stats) -> dict[str, float]:
    """Each part's CPU-seconds: a function's own time goes to its file's part; a built-in's (C code, no file) or
    Python's library's to the parts of its callers, shared as they called it (ast's walk to the code that reads
    the student's source, json's to the results)."""
    table = stats.stats  # type: ignore[attr-defined]
    shares: dict[tuple, dict[str, float]] = {}

    def owners(function: tuple, depth: int) -> dict[str, float]:
        if function in shares:
            return shares[function]
        part = _part(function[0])
        callers = table.get(function, (0, 0, 0, 0, {}))[4]
        if part != LIBRARY or not callers or depth > 8:
            return {part: 1.0}
        shares[function] = {LIBRARY: 1.0}  # a cycle of library calls stays the library's
        total = sum(timing[2] for timing in callers.values()) or 1.0
        found: dict[str, float] = collections.defaultdict(float)
        for caller, timing in callers.items():
            for owner, share in owners(caller, depth + 1).items():
                found[owner] += share * timing[2] / total
        shares[function] = dict(found)
        return shares[function]

    spent: dict[str, float] = collections.defaultdict(float)
    for function, (_, _, own, _, _) in table.items():
        for owner, share in owners(function, 0).items():
            spent[owner] += own * share
    return dict(spent)


def _counts(stats: pstats.Stats) -> dict[str, int]:
    """How often the service's side did what costs a round trip or a process."""
    wanted = {("process.py", "send"): "writes to a worker (round trips)",
              ("process.py", "spawn"): "workers started",
              ("wire.py", "pack"): "values packed for the wire",
              ("wire.py", "unpack"): "values unpacked from the wire"}
    found = dict.fromkeys(wanted.values(), 0)
    for (filename, _, name), (_, calls, _, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        key = (Path(filename).name, name)
        if key in wanted and "/graders/sandbox/" in filename:
            found[wanted[key]] += calls
    return found


# ----------------------------------------------------------------------------- the batch

ROLES = ("the batch (Dask, intake, store, outputs)", "the template (torch, pytest loaded once)",
         "grading services (pytest, checks, comparisons, the wire's near end)", "zygotes",
         "sandboxed workers (the reference's calls, imports, the wire's far end)", "similarity", "other processes")


@dataclass
class BatchRun:
    seconds: float
    cpu: float  # every process of the run (its cgroup), else what rusage saw
    roles: dict[str, float] = field(default_factory=dict)  # CPU-seconds by role, as the watcher last saw them
    outputs: float = 0.0  # the batch's own CPU after its last student's line: the outputs


def _batch(source: Path, out: Path, jobs: int, students: int) -> BatchRun:
    from batch_speed import _cpu_group, _remove_group  # a cgroup of its own counts every process of a run

    command = [sys.executable, "-m", "graders", "grade", str(source), "--out", str(out), "-j", str(jobs)]
    group = _cpu_group()
    if group is not None:
        command = ["sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$@"', "sh", *command]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    watcher = _Watcher(process.pid)
    watcher.start()
    last_line, lines = f"[{students}/{students}]", []
    graded_at = None
    for line in process.stdout:  # type: ignore[union-attr]
        lines.append(line)
        if line.startswith(last_line):
            graded_at = watcher.own(process.pid)
    process.wait()
    seconds = time.perf_counter() - started
    watcher.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    if group is not None:
        time.sleep(1.0)  # what outlives the command by a moment is counted too
        cpu = int((group / "cpuacct.usage").read_text()) / 1e9
        _remove_group(group)
    if process.returncode != 0:
        sys.exit(f"the batch failed ({process.returncode}):\n{''.join(lines)[-3000:]}")
    roles = watcher.roles()
    outputs = roles[ROLES[0]] - graded_at if graded_at is not None else 0.0
    return BatchRun(seconds, cpu, roles, outputs)


class _Watcher(threading.Thread):
    """Reads the CPU-seconds of every process below the batch from /proc, five times a second: each process's own
    time, and a zygote's reaped workers'. What ends between two reads loses its last fifth of a second."""

    def __init__(self, root: int) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.seen: dict[int, tuple[str, float]] = {}  # pid -> role, own CPU-seconds last seen
        self.roles_of: dict[int, str] = {}  # pid -> its part, as first told
        self.workers: dict[int, float] = {}  # zygote pid -> most seen of its reaped and live workers' CPU-seconds
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.2):
            self.read()

    def stop(self) -> None:
        self.done.set()
        self.join()

    def own(self, pid: int) -> float:
        return self.seen.get(pid, ("", 0.0))[1]

    def roles(self) -> dict[str, float]:
        spent = dict.fromkeys(ROLES, 0.0)
        for role, cpu in self.seen.values():
            if role != ROLES[4]:
                spent[role] += cpu
        spent[ROLES[4]] = sum(self.workers.values())
        return spent

    def read(self) -> None:
        stats = _stats()
        children: dict[int, list[int]] = collections.defaultdict(list)
        for pid, (parent, _, _) in stats.items():
            children[parent].append(pid)
        root = stats.get(self.root)
        if root is None:
            return
        queue = [(self.root, "root")]
        while queue:
            pid, role = queue.pop()
            parent, own, reaped = stats[pid]
            known = self.roles_of.get(pid, "other")
            if known != "other":  # an ending process (a zombie) has no command line left to tell it by
                role = known
            self.roles_of[pid] = role
            self.seen[pid] = (_role_name(role), own)
            if role == "zygote":
                live = sum(stats[c][1] + stats[c][2] for c in children.get(pid, []))
                self.workers[pid] = max(self.workers.get(pid, 0.0), reaped + live)
                continue  # its workers are counted through it
            for child in children.get(pid, []):
                queue.append((child, _child_role(role, child)))


def _role_name(role: str) -> str:
    return {"root": ROLES[0], "template": ROLES[1], "service": ROLES[2], "zygote": ROLES[3],
            "similarity": ROLES[5]}.get(role, ROLES[6])


def _child_role(parent_role: str, pid: int) -> str:
    """A process's part in the batch, from its parent's: the batch forks the template (a group leader, the batch's
    own command line), the template forks the services, each service its zygote; the batch starts the similarity
    process with multiprocessing's spawn."""
    if parent_role == "root":
        command = _command(pid)
        if "spawn_main" in command:
            return "similarity"
        return "template" if "graders" in command else "other"  # a fork of the batch: its command line
    return {"template": "service", "service": "zygote"}.get(parent_role, "other")


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _stats() -> dict[int, tuple[int, float, float]]:
    """Every process: its parent, its own CPU-seconds, and its reaped children's."""
    found = {}
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            found[int(entry.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / TICK,
                                      (int(fields[13]) + int(fields[14])) / TICK)
    return found


def _write_class(folder: Path, students: int) -> None:
    """`students` student folders, each handing in the reference unchanged."""
    for index in range(students):
        target = folder / f"student{index:03d}" / _lesson().folder
        target.mkdir(parents=True)
        for exercise in _lesson().exercises:
            shutil.copy(ROOT / "reference" / _lesson().folder / f"{exercise.slug}.py", target)


# ----------------------------------------------------------------------------- the run

def _child(*arguments: str) -> subprocess.CompletedProcess:
    """This script in a child process of its own (each part in a clean process), from the repository's root."""
    done = subprocess.run([sys.executable, __file__, *arguments], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(arguments[:1])} failed:\n{done.stdout[-2000:]}{done.stderr[-3000:]}")
    return done


def _per(value: float, count: int) -> str:
    return f"{value / count:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30, help="the class of reference copies (default 30)")
    parser.add_argument("--repeat", type=int, default=3, help="passes of the floor's calls (default 3)")
    parser.add_argument("--quick", action="store_true", help="a smoke run: no profile, no -j 2 run")
    parser.add_argument("--keep", action="store_true", help="keep the scratch folder and print where it is")
    parser.add_argument("--gather", type=Path, help=argparse.SUPPRESS)  # the parts run in child processes
    parser.add_argument("--floor", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--profile", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--warm", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.gather:
        return _gather(options.gather)
    if options.floor:
        return _floor(options.floor, options.repeat)
    if options.profile:
        return _profile(options.profile.parent, options.profile, options.warm)
    if options.students <= SMALL:
        parser.error(f"--students must be more than {SMALL}, the small class's size")
    scratch = Path(tempfile.mkdtemp(prefix="batch-floor-"))
    os.environ["GRADERS_CACHE_DIR"] = str(scratch / "kept")  # the reference's values: kept by the first run below
    try:
        _run(scratch, options.students, options.repeat, options.quick)
    finally:
        if options.keep:
            print(f"kept {scratch}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def _run(scratch: Path, students: int, repeat: int, quick: bool) -> None:
    n = students
    print(f"load average at the start: {_load()}", flush=True)
    print("gathering the checks' calls of the reference (grading it in a process of its own)...", flush=True)
    _child("--gather", str(scratch / "calls.pickle"))
    floor_report = json.loads(_child("--floor", str(scratch / "calls.pickle"), "--repeat", str(repeat))
                              .stdout.splitlines()[-1])
    print("grading the classes...", flush=True)
    _write_class(scratch / "small", SMALL)
    _write_class(scratch / "class", n)
    _batch(scratch / "small", scratch / "out-first", 2, SMALL)  # untimed: keeps the reference's values
    small = _batch(scratch / "small", scratch / "out-small", 1, SMALL)
    one = _batch(scratch / "class", scratch / "out-1", 1, n)
    two = None if quick else _batch(scratch / "class", scratch / "out-2", CORES, n)
    profiled = warmed = None
    if not quick:
        for name in ("profile", "warmed"):
            (scratch / name).mkdir()
        _child("--profile", str(scratch / "profile" / "profile.json"))
        profiled = json.loads((scratch / "profile" / "profile.json").read_text())
        _child("--profile", str(scratch / "warmed" / "profile.json"), "--warm", str(scratch / "calls.pickle"))
        warmed = json.loads((scratch / "warmed" / "profile.json").read_text())
    load = _load()

    cold, passes = floor_report["passes"][0], floor_report["passes"][1:]
    kinds = ("noted", "driver", "raised", "reused")
    median = {kind: statistics.median(p.get(kind, 0.0) for p in passes) for kind in kinds}
    floor_noted = median["noted"]
    floor = median["noted"] + median["driver"] + median["raised"]  # a reused answer is not run again
    counts = floor_report["counts"]
    print()
    print(f"the floor, per submission (median of {len(passes)} passes after a first, one process, one torch thread):")
    print(f"  the calls the engine notes:         {floor_noted:.3f} CPU-s ({counts.get('noted', 0)} calls)")
    print(f"  missed by the notes, run here too:  drivers {median['driver']:.3f} CPU-s ({counts.get('driver', 0)} runs), "
          f"calls that raised on purpose {median['raised']:.3f} CPU-s ({counts.get('raised', 0)})")
    print(f"  noted again but answered from an earlier check (reuse), not counted: {median['reused']:.3f} CPU-s "
          f"({counts.get('reused', 0)} calls)")
    print(f"  not run: {floor_report['unbound']} noted calls that do not fit the reference's function, "
          f"{floor_report['unpicklable']} whose arguments could not be carried over; {floor_report['failed']} "
          f"failed when run directly")
    print(f"  outside the floor: importing the {len(_lesson().exercises)} reference modules, "
          f"{floor_report['imports']:.3f} CPU-s; the Meanwhile expected values, computed once per class")
    print(f"  floor = noted + drivers + raised: {floor:.3f} CPU-s")
    run = {name: sum(floor_report[name].get(kind, 0.0) for kind in kinds[:3]) for name in ("forked", "unwarmed")}
    print(f"  the same calls, once, in a process that ran none yet: {sum(cold.get(kind, 0.0) for kind in kinds[:3]):.3f} "
          f"CPU-s; in a fork of it before any ran (a worker of a zygote that ran none): {run['unwarmed']:.3f}; "
          f"in a fork of it after the passes: {run['forked']:.3f}")
    print()
    cpu = one.cpu / n
    marginal = {role: (one.roles[role] - small.roles[role]) / (n - SMALL) for role in ROLES}
    print(f"the batch, {n} copies of the reference, -j 1: {one.seconds:.1f} s, {one.cpu:.1f} CPU-s in all "
          f"({'its cgroup' if _cpu_group_possible() else 'rusage: what outlives its parent is missed'})")
    print(f"  CPU per submission, start-up included: {cpu:.3f} CPU-s")
    ratio = cpu / floor
    print(f"RATIO CPU: batch {cpu:.3f} / floor {floor:.3f} = {ratio:.2f}x (goal <= {CPU_GOAL}x) -> "
          f"{'GOAL' if ratio <= CPU_GOAL else 'OVER'}; against the noted calls alone {cpu / floor_noted:.2f}x")
    if two is not None:
        wall = two.seconds / n
        wall_ratio = wall / (floor / CORES)
        print(f"RATIO WALL: batch -j {CORES} {wall:.3f} s per submission ({two.seconds:.1f} s for {n}) / "
              f"(floor / {CORES} cores) {floor / CORES:.3f} = {wall_ratio:.2f}x (goal <= {WALL_GOAL}x) -> "
              f"{'GOAL' if wall_ratio <= WALL_GOAL else 'OVER'}")
    print(f"load average (1, 5, 15 min) at the end: {load}")
    print()
    print(f"where the batch's CPU goes (-j 1; per submission: the {n} class less the {SMALL} class, over "
          f"{n - SMALL}; start-up: the {SMALL} class less {SMALL} submissions):")
    seen_small = sum(small.roles.values())
    for role in ROLES:
        per = marginal[role]
        startup = small.roles[role] - SMALL * per
        if abs(per) >= 0.0005 or abs(startup) >= 0.0005:
            print(f"  {role:75s} {per:7.3f} per submission, {startup:6.2f} start-up")
    print(f"  {'of the batch: its outputs, after the last student (in the whole run)':75s} {one.outputs:7.2f}")
    unattributed = (one.cpu - sum(one.roles.values())) / n
    print(f"  {'unattributed (processes too brief for the watcher, the last fifth of a second)':75s} "
          f"{unattributed:7.3f} per submission (cgroup {one.cpu:.1f} - watched {sum(one.roles.values()):.1f}; "
          f"small class {small.cpu - seen_small:.1f})")
    startup = sum(small.roles[role] - SMALL * marginal[role] for role in ROLES) + small.cpu - seen_small
    print(f"  in sum: {sum(marginal.values()):.3f} CPU-s per submission, of which the floor {floor:.3f}; start-up "
          f"{startup:.2f} CPU-s, {startup / n:.3f} per submission at {n}")
    workers = marginal[ROLES[4]]
    print(f"  of the workers' {workers:.3f}: the floor {floor:.3f}, the rest {workers - floor:.3f} (forks, the "
          f"module's import, the wire's far end, tracing)")
    if profiled is not None:
        plain, scale = profiled["plain"], profiled["plain"] / profiled["own"]
        print()
        user, system = profiled["plain_workers"]
        replies = profiled["replies"]
        print(f"one submission graded through the service's code in one process: the service's side {plain:.3f} CPU-s, "
              f"its workers {user + system:.3f} CPU-s ({user:.3f} user, {system:.3f} system; floor {floor:.3f})")
        print(f"  the workers' own clocks (wall): {replies.get('calls and runs', 0.0):.3f} s inside "
              f"{replies.get('calls and runs (count)', 0)} calls and driver runs, "
              f"{replies.get('traced calls and runs', 0.0):.3f} s inside "
              f"{replies.get('traced calls and runs (count)', 0)} traced ones (torch's calls recorded), "
              f"{replies.get('imports', 0.0):.3f} s in {replies.get('imports (count)', 0)} imports of the exercise "
              f"modules; the rest of the workers' CPU is their start and the wire's far end")
        print(f"  the service's side by part, from cProfile (timed in CPU, {profiled['own']:.2f} CPU-s under it), "
              f"scaled to the {plain:.3f}:")
        for name, spent in sorted(profiled["parts"].items(), key=lambda item: -item[1]):
            print(f"  {name:75s} {spent * scale:7.3f}")
        print("  " + ", ".join(f"{name}: {count}" for name, count in profiled["counts"].items()))
        print("  (a profiler weighs many small Python calls more than long C ones: the shares are approximate)")
    if profiled is not None and warmed is not None:
        print(f"the same submission's workers with a zygote forked after the reference's own calls ran (an experiment, "
              f"never a way to grade): {sum(warmed['plain_workers']):.3f} CPU-s against "
              f"{sum(profiled['plain_workers']):.3f}; the zygote forked as in a service: "
              f"{profiled['forked_zygote'] and warmed['forked_zygote']}")


def _cpu_group_possible() -> bool:
    from batch_speed import _cpu_group, _remove_group

    group = _cpu_group()
    if group is None:
        return False
    _remove_group(group)
    return True


def _load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


if __name__ == "__main__":
    main()
