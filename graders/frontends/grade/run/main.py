"""`python -m graders grade SOURCE --out DIR [-j N | --scheduler ADDRESS]`: grade a class on Dask, resume, write every format.

1. find the submissions and their answers (sources.py, answers.py);
2. keep every stored result whose key (answers and course) is unchanged (store.py);
3. join a Dask cluster, or start one on this machine (cluster.py), whose workers each keep warm
   grading services (dask_worker.py, service.py); refuse where their sandbox cannot hold, unless
   told `allow_unconfined`;
4. grade the reference once, storing every expected value it computes, for all to reuse;
5. grade the rest as Dask tasks, storing each result as soon as it is back;
6. apply the term (term.py: the due date and late policy; roster.py; decisions.py, the ledger) to every
   student's standing (standing.py), compare answers for similarity (similarity.py), and write the
   outputs from the stored results of this class (outputs.py); with --compare, what changed since an
   earlier run (regrade.py).

This process never imports torch nor runs any check: it reads answers and writes results.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable

import course_config
from graders.engine import kept_values
from graders.engine.results import NotAResult, SubmissionResult
from graders.frontends.grade.outputs import outputs
from graders.frontends.grade import store
from graders.frontends.grade.term.class_term import LoadedTerm, load_term, synced_from_nbgrader
from graders.frontends.grade.run.cluster import GradingSite
from graders.frontends.grade.run.out_folder import OutError, check_out
from graders.frontends.grade.run.progress import Progress
from graders.frontends.grade.intake.sources import (DEFAULT_STUDENT_PATTERN, FOLDER_TIMES_SAID, SourceError, Submission,
                                             course_exercises, find_submissions, machine_zone)
from graders.frontends.grade.run.template import TEMPLATE
from graders.frontends.grade.term.term import TermError, time_zone
from graders.frontends.wording import counted

DEADLINE_MARGIN = 120.0  # a grading service's own time for one submission, on top of the code's allowance


def main(source: Path, *, out: Path, jobs: int | None = None, lesson: str = "lesson01",
         assignment: str | None = None, student_pattern: str = DEFAULT_STUDENT_PATTERN,
         gradebook: bool = False, allow_unconfined: bool = False, cache: Path | None = None,
         where: GradingSite | None = None, term: Path | None = None, roster: Path | None = None,
         decisions: Path | None = None, compare: Path | None = None, archive: list[Path] | None = None,
         roster_id_column: str | None = None, unzipped_in: str | None = None) -> int:
    """Grade every submission under `source` into `out`; returns the number that could not be graded.
    `cache` is the folder of the expected-values cache (default: out/.cache); `where` the Dask cluster
    to grade on (default: one of `jobs` processes on this machine, as many as it has cores). `term`,
    `roster` and `decisions` are the term's files (the last two override what `term` names; the ledger's
    default is out/decisions.csv); `compare` an earlier run's output folder; `archive` earlier terms'. `unzipped_in`
    names the time zone a download given as a folder was unzipped in (overrides the term file's)."""
    chosen = next((l for l in course_config.LESSONS if l.folder == lesson), None)
    if chosen is None:
        raise SystemExit(f"--lesson {lesson}: course_config.py has no such lesson")
    points = {"": chosen.points, **{e.slug: e.points for e in chosen.exercises}}  # what a decision may set
    try:  # first: the term's default ledger lives in --out, and reading it there would blame the ledger
        check_out(Path(source), Path(out))
    except OutError as error:
        raise SystemExit(f"graders grade: {error}") from None
    setting = load_term(term, roster, decisions, Path(out), points, compare, archive, roster_id_column)
    zone = setting.term.unzipped_in
    if unzipped_in is not None:
        zone = time_zone(unzipped_in)
        if zone is None:
            raise SystemExit(f"graders grade: --unzipped-in {unzipped_in!r}: not a time zone name; give the zone of "
                             f"the machine the download was unzipped on, like Europe/Berlin or America/New_York")
    slugs = [e.slug for e in chosen.exercises]
    if (Path(source) / "submitted").is_dir():  # an nbgrader course: the exercises its assignment has
        slugs = course_exercises(Path(source), assignment or lesson, lesson, slugs)
        chosen = dataclasses.replace(chosen, exercises=tuple(chosen.exercise(slug) for slug in slugs))
    try:
        layout, submissions = find_submissions(Path(source), lesson=lesson, slugs=slugs, assignment=assignment,
                                               student_pattern=student_pattern, unzipped_in=zone)
    except SourceError as error:
        raise SystemExit(f"graders grade: {error}") from None
    if not submissions:
        raise SystemExit(f"graders grade: {source} holds no submission")
    setting.check_class([s.student for s in submissions])
    if zone is None and setting.term.policy.due is not None and any(
            FOLDER_TIMES_SAID in s.submitted_how for s in submissions):
        print(f"graders grade: the hand-in times are the unzipped files' times, read as unzipped in this machine's "
              f"zone ({machine_zone()}): approximate (off by the difference if it was unzipped in another zone; "
              f"wrong where files were copied without their times). Grade the download's zip for exact times, or "
              f"say where it was unzipped with --unzipped-in ZONE (or unzipped_in in the term's file)", flush=True)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    oom_score(-1000)  # under memory pressure, never the process that holds the class's results (root only)
    course = store.course_digest()
    digests = store.exercise_digests(chosen.folder, slugs)
    exercise_keys = {s.student: store.exercise_keys(digests, s.sources, s.modules) for s in submissions}
    keys = {s.student: store.result_key(exercise_keys[s.student], s.problems) for s in submissions}
    previous = {s.student: store.stored(out, s.student) for s in submissions}
    stored_keys = {student: record.key for student, record in previous.items() if record is not None}
    changed = [s for s in submissions if stored_keys.get(s.student) != keys[s.student]]
    regrade = {s.student: store.to_regrade(previous[s.student], exercise_keys[s.student]) for s in changed}
    for submission in changed:  # only what was said about the hand-in changed: nothing to grade again
        if not regrade[submission.student]:
            store.store(out, dataclasses.replace(previous[submission.student],
                                                 **_about(submission, keys, exercise_keys)))
    to_grade = [s for s in changed if regrade[s.student]]
    if not to_grade:
        TEMPLATE.stop()
    print(f"graders grade: {counted(len(submissions), 'submission')} ({layout}) in {source}; "
          f"{len(submissions) - len(to_grade)} unchanged since the last run, {len(to_grade)} to grade"
          f"{_only_in(regrade, to_grade, slugs)}", flush=True)
    # Started now, as it depends on nothing graded: it runs in what grading leaves idle (outputs.Similarity).
    with outputs.Similarity({s.student: s.sources for s in submissions}, chosen, archive) as similarity:
        failed = 0
        if to_grade:
            where = where or GradingSite(jobs=jobs or os.cpu_count() or 1)
            failed = _grade(to_grade, GradingPlan(keys, exercise_keys, regrade, previous), chosen, out, where,
                            allow_unconfined, cache or out / ".cache", course, _term_note(setting, chosen))
        # Only results of what was handed in now: a student whose new hand-in could not be graded this time is
        # pending (their old result would pair a stale score with the new hand-in's time).
        records = [r for r in (store.stored(out, s.student) for s in submissions)
                   if r is not None and r.key == keys[r.student]]
        pending = {s.student for s in submissions} - {r.student for r in records}
        course_folder = Path(source) if layout == "nbgrader course" else None
        try:
            if course_folder is not None:
                synced_from_nbgrader(course_folder, assignment or lesson, setting)
            class_term = setting.applied(records, submissions, chosen, pending)
            written = outputs.write_all(out, records, chosen, similarity,
                                        gradebook_course=course_folder if gradebook else None,
                                        assignment=assignment or lesson, term=class_term,
                                        modules={s.student: s.modules for s in submissions if s.modules})
            if setting.compare is not None:
                written += outputs.write_changes(out, setting.compare, records)
        except TermError as error:  # the ledger or the gradebook changed under us: nothing graded is lost
            print(f"graders grade: {error}; every result is stored: mend it and run again to write the outputs",
                  flush=True)
            return failed or 1
        except OSError as error:  # a full disk: every stored result is still there for the next run
            print(f"graders grade: the class's outputs could not be written in {out} ({error.strerror or error}); "
                  f"every result stored so far is kept: free some space and run again to write them", flush=True)
            return failed or 1
        if gradebook and layout != "nbgrader course":
            print("graders grade: --gradebook needs an nbgrader course as SOURCE; no gradebook was written")
        print(f"graders grade: wrote {', '.join(written)} in {out}")
        return failed


@dataclasses.dataclass(frozen=True)
class GradingPlan:
    """What a run plans for each student it grades: their result's key, each exercise's key, the exercises to
    grade again and the result stored before (the one the regraded exercises are merged into)."""

    results: dict[str, str]
    exercises: dict[str, dict[str, str]]
    regrade: dict[str, list[str]]
    previous: dict[str, store.StudentRecord | None]


def _about(submission: Submission, keys: dict[str, str], exercise_keys: dict[str, dict[str, str]]) -> dict[str, Any]:
    """What a stored result says of the hand-in it grades, beside the result model (StudentRecord's fields)."""
    return {"student": submission.student, "key": keys[submission.student],
            "exercise_keys": exercise_keys[submission.student], "origin": submission.origin,
            "submission": submission.origin, "problems": submission.problems}


def _only_in(regrade: dict[str, list[str]], to_grade: list[Submission], slugs: list[str]) -> str:
    """', in views and micrograd only (the others' results are kept)' when no one is regraded in every exercise."""
    touched = {slug for s in to_grade for slug in regrade[s.student]}
    if not to_grade or touched == set(slugs) or any(set(regrade[s.student]) == set(slugs) for s in to_grade):
        return ""
    named = [slug for slug in slugs if slug in touched]
    listed = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"
    return f", in {listed} only (their other exercises' results are kept)"


def _term_note(setting: LoadedTerm, lesson: course_config.Lesson) -> Callable[[store.StudentRecord, Submission], str]:
    """What the term makes of each student's score, for their progress line: a late hand-in's line shows the final
    score beside the checks'. A ledger that cannot be read now is said when the outputs are written."""
    try:
        return setting.progress_note(lesson, setting.decisions())
    except TermError:
        return lambda record, submission: ""


def _grade(submissions: list[Submission], plan: GradingPlan, lesson: course_config.Lesson, out: Path,
           where: GradingSite, allow_unconfined: bool, cache_folder: Path, course: str,
           term_note: Callable[[store.StudentRecord, Submission], str]) -> int:
    from graders.frontends.grade.run import cluster

    seconds = float(course_config.LIMITS.submission_seconds.value) + DEADLINE_MARGIN
    by_student = {s.student: s for s in submissions}
    failures: list[str] = []
    later: dict[str, str] = {}  # students this run could not store, and why: the next run grades them
    reference = None if expected_cache(cache_folder, course).is_file() or _kept_reference(course) is not None else (
        lesson.folder, [e.slug for e in lesson.exercises])
    with cluster.connected(where, course, logs=out / "logs", reference=reference) as client:
        cluster.refuse_unless_confined(client, allow_unconfined)
        expected = expected_values(client, lesson, cache_folder, course)
        progress = Progress(len(submissions))

        def done(job: dict[str, Any], reply: dict[str, Any]) -> None:
            submission = by_student[job["student"]]
            if "machine" in reply:  # the machine failed, not the student: nothing stored, so that a rerun grades them
                later[submission.student] = reply["machine"]
                failures.append(submission.student)
                return
            try:
                record = _record(submission, plan, reply, lesson, out)
                store.store(out, record)
            except OSError as error:  # a full disk (ENOSPC), a quota: say so, and go on with the others
                later[submission.student] = f"its result could not be stored ({error.strerror or error})"
                failures.append(submission.student)
                return
            if record.error:
                failures.append(submission.student)
            progress.done(submission.student, record, "" if record.error else term_note(record, submission))

        # Every exercise whose key changed is graded (a missing file scores 0, and says so); the others are kept.
        jobs = [{"student": s.student, "lesson": lesson.folder, "slugs": plan.regrade[s.student], "sources": s.sources,
                 "modules": s.modules, "allow_unconfined": allow_unconfined,
                 "key": f"{store.file_name(s.student)}-{plan.results[s.student][:24]}"} for s in submissions]
        try:
            cluster.grade_all(client, jobs, expected, seconds, done)
        finally:
            progress.close()
    for student, why in later.items():
        print(f"graders grade: {student} was not graded by this run: {why}", flush=True)
    if later:
        print(f"graders grade: {counted(len(later), 'student')} not graded; run the same command again to grade them "
              f"(what is stored is kept)", flush=True)
    return len(failures)


def expected_values(client: Any, lesson: course_config.Lesson, folder: Path, course: str) -> str:
    """The reference's expected values (as stored text), computed once per course version on the cluster's
    workers and kept in `folder` for later runs: keys name the function and its arguments, so one store
    serves every exercise."""
    from graders.frontends.grade.run import cluster

    cache = expected_cache(folder, course)
    if cache.is_file():
        return cache.read_text(encoding="utf-8")
    kept = _kept_reference(course)
    if kept is not None:
        text = kept.read_text(encoding="utf-8")
        store.write_atomically(cache, text)
        print(f"graders grade: the reference's expected values of this version of the course, kept from an earlier "
              f"run ({kept})", flush=True)
        return text
    started = time.monotonic()
    print("graders grade: grading the reference once, to store its expected values...", flush=True)
    values = cluster.reference_values(client, lesson.folder, [e.slug for e in lesson.exercises])
    text = json.dumps(values, sort_keys=True)
    store.write_atomically(cache, text)
    _keep_reference(course, text)
    print(f"graders grade: stored in {time.monotonic() - started:.1f} s", flush=True)
    return text


def expected_cache(folder: Path, course: str) -> Path:
    return folder / f"expected-{course[:16]}.json"


def _kept_reference(course: str) -> Path | None:
    """The reference's expected values of this version of the course, if an earlier run kept them in the user's cache
    folder (kept_values.py; nothing is kept when GRADERS_CACHE_DIR is "off")."""
    kept = kept_values.path(kept_values.BATCH_PREFIX, course)
    return kept if kept is not None and kept.is_file() else None


def _keep_reference(course: str, text: str) -> None:
    """Keep the reference's values for later runs (a class graded into another folder, a benchmark's next run): the
    reference takes a few seconds to grade, before any student can be. Only this version's file is kept. The
    values were computed by the grading services from the reference, never by student code; a folder that cannot
    be written only means the next run grades the reference again."""
    kept = kept_values.path(kept_values.BATCH_PREFIX, course)
    if kept is None:
        return
    try:
        store.write_atomically(kept, text)
        kept_values.forget_other_versions(kept, kept_values.BATCH_PREFIX)
    except OSError:
        pass


def oom_score(adjustment: int) -> None:
    """Set this process's oom_score_adj: -1000 for the batch's parent, which holds the class's results (root
    only may lower it); the grading services' workers raise theirs to 1000, the OOM killer's first choice."""
    try:
        with open("/proc/self/oom_score_adj", "w") as handle:
            handle.write(str(adjustment))
    except OSError:
        pass


def _record(submission: Submission, plan: GradingPlan, reply: dict[str, Any], lesson: course_config.Lesson,
            out: Path) -> store.StudentRecord:
    """What is stored for a student: the result model, where the answers came from, what was wrong. The
    feedback's plots came back as bytes under the names the service gave them; they are kept under out/plots.
    When only some exercises were graded again, their results replace those of the stored record."""
    why = reply.get("error", "")
    slugs = plan.regrade[submission.student]
    previous = plan.previous[submission.student]
    try:  # the grading service's reply, through Dask: the result model as its JSON data
        result = None if reply.get("result") is None else SubmissionResult.from_dict(reply["result"])
    except NotAResult as error:
        result, why = None, f"the grading service's result could not be read: {error}"
    partial = previous is not None and result is not None and set(slugs) != {e.slug for e in lesson.exercises}
    if result is None:
        why = why or f"the grading service gave no result (pytest's exit status {reply.get('exit')})"
        result = SubmissionResult(submission.origin, lesson.number, 0.0, lesson.points, trusted=True, complete=False,
                                  confined=False, confinement="")
    files: dict[str, str] = reply.get("files") or {}
    kept = out / "plots" / store.file_name(submission.student)
    if partial:  # the plots of the exercises graded again go; the others' stay with their results
        for exercise, check in previous.checks():
            if exercise.slug in slugs:
                for name in check.files:
                    (out / name).unlink(missing_ok=True)
    else:
        shutil.rmtree(kept, ignore_errors=True)
    for check in (check for exercise in result.exercises for check in exercise.checks):
        moved = []
        for name in check.files:
            if name in files:
                kept.mkdir(parents=True, exist_ok=True)
                target = kept / Path(name).name
                target.write_bytes(base64.b64decode(files[name]))
                moved.append(str(target.relative_to(out)))
        check.files = moved
    if partial:
        result = store.merged(previous, result, slugs, [e.slug for e in lesson.exercises])
    return store.StudentRecord(**{**vars(result), **_about(submission, plan.results, plan.exercises), "error": why})
