"""`python -m graders grade SOURCE --out DIR [-j N]`: grade a class, resume where it stopped, write every format.

1. find the submissions and their answers (sources.py, answers.py);
2. refuse to grade where the sandbox cannot hold, unless told `allow_unconfined`;
3. keep every stored result whose key (answers and course) is unchanged (store.py);
4. grade the reference once, storing every expected value it computes, for all to reuse;
5. grade the rest in parallel (pool.py), storing each result as soon as it is in;
6. write the outputs from the stored results of this class (outputs.py).
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NoReturn

import course_config
from graders import drawing, plots, scratch
from graders.batch import outputs, store
from graders.batch.pool import Job, Pool, oom_score, start_child
from graders.batch.progress import Progress
from graders.sandbox.zygote import ZYGOTE
from graders.batch.sources import (DEFAULT_STUDENT_PATTERN, SourceError, Submission, course_exercises,
                                   find_submissions)

UNCONFINED = ("graders grade: the sandbox cannot fully hold on this machine ({missing}), so a hostile "
              "submission could read the reference or reach other students' files. Grade on Linux with "
              "Landlock and seccomp (as root or not), or pass --allow-unconfined to grade anyway.")
DEADLINE_MARGIN = 120.0  # a grading process's start-up and the checks' own time, on top of the code's allowance


def main(source: Path, *, out: Path, jobs: int | None = None, lesson: str = "lesson01",
         assignment: str | None = None, student_pattern: str = DEFAULT_STUDENT_PATTERN,
         gradebook: bool = False, allow_unconfined: bool = False, cache: Path | None = None) -> int:
    """Grade every submission under `source` into `out`; returns the number that could not be graded.
    `cache` is the folder of the expected-values cache (default: out/.cache)."""
    chosen = next((l for l in course_config.LESSONS if l.folder == lesson), None)
    if chosen is None:
        raise SystemExit(f"--lesson {lesson}: course_config.py has no such lesson")
    slugs = [e.slug for e in chosen.exercises]
    if (Path(source) / "submitted").is_dir():  # an nbgrader course: the exercises its assignment has
        slugs = course_exercises(Path(source), assignment or lesson, lesson, slugs)
        chosen = dataclasses.replace(chosen, exercises=tuple(chosen.exercise(slug) for slug in slugs))
    try:
        layout, submissions = find_submissions(Path(source), lesson=lesson, slugs=slugs, assignment=assignment,
                                               student_pattern=student_pattern)
    except SourceError as error:
        raise SystemExit(f"graders grade: {error}") from None
    if not submissions:
        raise SystemExit(f"graders grade: {source} holds no submission")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    oom_score(-1000)  # under memory pressure, never the process that holds the class's results (root only)
    course = store.course_digest()
    keys = {s.student: store.result_key(course, s.sources, s.problems) for s in submissions}
    to_grade = [s for s in submissions if (stored := store.stored(out, s.student)) is None
                or stored.get("key") != keys[s.student]]
    print(f"graders grade: {len(submissions)} submissions ({layout}) in {source}; "
          f"{len(submissions) - len(to_grade)} unchanged since the last run, {len(to_grade)} to grade", flush=True)
    cache_folder = cache or out / ".cache"
    if to_grade:
        ZYGOTE.start()  # the batch's clean zygote, exec'd: it loads torch while this process goes on
    if to_grade and not expected_cache(cache_folder, course).is_file():
        # The reference's runs need the generated inputs: a helper draws them while torch loads.
        drawing.DRAWER.start([(chosen.folder, e.slug) for e in chosen.exercises])
    _refuse_unless_confined(allow_unconfined)
    failed = 0
    if to_grade:
        jobs = jobs or os.cpu_count() or 1
        cache_file = expected_values(exercise_targets(chosen), cache_folder, course, jobs)
        failed = _grade(to_grade, keys, chosen, out, jobs, allow_unconfined, cache_file)
    records = [store.stored(out, s.student) for s in submissions]
    try:
        written = outputs.write_all(out, [r for r in records if r is not None], chosen, gradebook_course=(
            Path(source) if gradebook and layout == "nbgrader course" else None), assignment=assignment or lesson)
    except OSError as error:  # a full disk: every stored result is still there for the next run
        print(f"graders grade: the class's outputs could not be written in {out} ({error.strerror or error}); "
              f"every result stored so far is kept: free some space and run again to write them", flush=True)
        return failed or 1
    if gradebook and layout != "nbgrader course":
        print("graders grade: --gradebook needs an nbgrader course as SOURCE; no gradebook was written")
    print(f"graders grade: wrote {', '.join(written)} in {out}")
    return failed


def _refuse_unless_confined(allow_unconfined: bool) -> None:
    from graders import sandbox

    planned = sandbox.plan()
    if planned.confined:
        return
    if not allow_unconfined:
        raise SystemExit(UNCONFINED.format(missing="; ".join(planned.missing)))
    print(f"graders grade: grading NOT CONFINED, as asked: {planned.summary()}", flush=True)


def _grade(submissions: list[Submission], keys: dict[str, str], lesson: course_config.Lesson, out: Path,
           jobs: int, allow_unconfined: bool, cache: Path) -> int:
    targets = exercise_targets(lesson)
    options = ["-p", "no:cacheprovider", "-p", "no:unraisableexception", "-q", "--expected-cache", str(cache)]
    options += [] if allow_unconfined else ["--require-confinement"]
    deadline = float(course_config.LIMITS.submission_seconds.value) + DEADLINE_MARGIN
    staging = scratch.make("graders-batch")
    by_student = {s.student: s for s in submissions}
    progress = Progress(len(submissions))
    failures: list[str] = []
    later: dict[str, str] = {}  # students this run could not grade or store, and why: the next run grades them

    def done(job: Job, result: dict | None, why: str, machine: bool) -> None:
        submission = by_student[job.student]
        shutil.rmtree(job.folder, ignore_errors=True)
        if machine:  # the machine failed, not the student: nothing stored, so that a rerun grades them
            later[job.student] = why
            failures.append(job.student)
            return
        try:
            record = _record(submission, keys[job.student], result, why, lesson, out, job.plots)
            store.store(out, record)
        except OSError as error:  # a full disk (ENOSPC), a quota: say so, and go on with the others
            later[job.student] = f"its result could not be stored ({error.strerror or error})"
            failures.append(job.student)
            return
        if record["error"]:
            failures.append(job.student)
        progress.done(job.student, record)

    try:
        import graders.session  # noqa: F401 - torch and the plugin, loaded once for every grading process

        for exercise in lesson.exercises:  # and the checks, which every grading process collects
            importlib.import_module(f"graders.{lesson.folder}.{exercise.slug}")
        plots.warm_up()  # matplotlib, for the feedback's loss curves in every grading process and for the report

        jobs_list = []
        for submission in submissions:
            try:
                jobs_list.append(_stage(submission, staging, lesson.folder))
            except OSError as error:  # a full disk: this student waits for the next run
                later[submission.student] = f"its answers could not be staged ({error.strerror or error})"
                failures.append(submission.student)
        Pool(min(jobs, len(submissions)), targets, options, deadline, out / "logs").run(jobs_list, done)
    finally:
        progress.close()
        shutil.rmtree(staging, ignore_errors=True)
    for student, why in later.items():
        print(f"graders grade: {student} was not graded by this run: {why}", flush=True)
    if later:
        print(f"graders grade: {len(later)} student(s) not graded; run the same command again to grade them "
              f"(what is stored is kept)", flush=True)
    return len(failures)


def exercise_targets(lesson: course_config.Lesson) -> list[str]:
    return [str(course_config.ROOT / "exercises" / lesson.folder / f"{e.slug}.py") for e in lesson.exercises]


def expected_values(targets: list[str], folder: Path, course: str, jobs: int = 1) -> Path:
    """The reference's expected values, computed once per course version, in children forked from
    this process: the children load the reference and die with it, so this process, and the grading
    processes forked from it later, never hold any of it; forked once torch is imported here, they
    do not import torch again (a second process would: about 1.5 s). The exercises are shared out
    among `jobs` children, whose stores are merged: keys name the function and its arguments, so
    the stores of different exercises never disagree."""
    cache = expected_cache(folder, course)
    if cache.is_file():
        return cache
    cache.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    import graders.session  # noqa: F401 - torch, pytest and the plugin: the children inherit them loaded

    # The generated inputs, drawn by the helper started at the beginning: the children inherit
    # them; this process, and the grading processes forked from it later, keep none.
    drawing.DRAWER.wait_for_all([(Path(t).parent.name, Path(t).stem) for t in targets])
    parts = [targets[i::jobs] for i in range(max(1, min(jobs, len(targets))))]  # lesson order dealt out in turn
    print(f"graders grade: grading the reference once, to store its expected values "
          f"({len(parts)} process{'es' if len(parts) > 1 else ''})...", flush=True)
    sys.stderr.flush()
    children = {}
    for number, part in enumerate(parts):
        part_cache = folder / f".expected-{course[:16]}.part{number}.json"
        log = folder / f"reference-{course[:16]}.part{number}.log"  # what the child printed, shown if it fails
        part_cache.unlink(missing_ok=True)
        lent = ZYGOTE.lend()  # a clean zygote for the child, which holds what this process read
        pid = os.fork()
        if pid == 0:
            ZYGOTE.adopt(lent)
            _grade_reference(part, part_cache, log)
        lent.close()
        children[pid] = (part_cache, log)
    drawing.DRAWER.close()
    values: dict[str, str] = {}
    failed = []
    for pid, (part_cache, log) in children.items():
        _, status = os.waitpid(pid, 0)
        try:
            values.update(json.loads(part_cache.read_text()))
        except (OSError, ValueError):
            told = log.read_text(errors="replace")[-4000:] if log.is_file() else ""
            failed.append(f"(exit status {status}):\n{told}")
        part_cache.unlink(missing_ok=True)
    if failed:
        raise SystemExit("graders grade: grading the reference failed " + "\n".join(failed))
    for _, log in children.values():
        log.unlink(missing_ok=True)
    store.write_atomically(cache, json.dumps(values, sort_keys=True))
    print(f"graders grade: stored in {time.monotonic() - started:.1f} s", flush=True)
    return cache


def exercises_to_draw(folder: Path, lesson: str) -> list[tuple[str, str]]:
    """The exercises whose generated inputs a batch needs drawn: none where the reference's values for this
    version of the course are stored in `folder` already (they hold the inputs too)."""
    chosen = next((l for l in course_config.LESSONS if l.folder == lesson), None)
    if chosen is None or expected_cache(folder, store.course_digest()).is_file():
        return []
    return [(chosen.folder, e.slug) for e in chosen.exercises]


def expected_cache(folder: Path, course: str) -> Path:
    return folder / f"expected-{course[:16]}.json"


def _grade_reference(targets: list[str], cache: Path, log: Path) -> NoReturn:
    code = 70
    try:
        start_child(log, truncate=True)
        import pytest
        import torch

        torch.set_num_threads(1)  # no thread pool from before the fork (see DESIGN.md); the tensors are small
        with tempfile.TemporaryDirectory(prefix="graders-reference-") as reference_scratch:
            os.chdir(reference_scratch)
            code = int(pytest.main([*targets, "--submission", str(course_config.ROOT / "reference"),
                                    "--expected-cache", str(cache), "-q", "-p", "no:cacheprovider",
                                    "--plots", str(Path(reference_scratch) / "plots")]))
        ZYGOTE.close()  # os._exit below runs no atexit: stopped here, the zygote removes its workers' cgroups
    except BaseException:  # noqa: BLE001 - the parent sees no cache and shows the log
        pass
    finally:
        os._exit(code)


def _stage(submission: Submission, staging: Path, lesson: str) -> Job:
    folder = staging / store.file_name(submission.student)
    (folder / lesson).mkdir(parents=True)
    for slug, source in submission.sources.items():
        (folder / lesson / f"{slug}.py").write_text(source, encoding="utf-8")
    return Job(submission.student, folder, folder / "result.json", folder / "plots")


def _record(submission: Submission, key: str, result: dict | None, why: str, lesson: course_config.Lesson,
            out: Path, plots: Path) -> dict[str, Any]:
    """What is stored for a student: the result model, where the answers came from, what was wrong."""
    if result is None:
        result = {"submission": submission.origin, "lesson": lesson.number, "score": 0.0, "max_score": lesson.points,
                  "trusted": True, "complete": False, "confined": False, "confinement": "", "exercises": []}
    kept = out / "plots" / store.file_name(submission.student)
    shutil.rmtree(kept, ignore_errors=True)
    for exercise in result.get("exercises", []):
        for check in exercise.get("checks", []):
            moved = []
            for name in check.get("files", []):
                source = Path(name)
                if source.is_file() and plots in source.parents:
                    kept.mkdir(parents=True, exist_ok=True)
                    shutil.copyfile(source, kept / source.name)
                    moved.append(str((kept / source.name).relative_to(out)))
            check["files"] = moved
    return {**result, "student": submission.student, "key": key, "origin": submission.origin,
            "submission": submission.origin, "problems": submission.problems, "error": why}
