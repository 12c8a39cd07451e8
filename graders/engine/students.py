"""The `Student` handles of one run: one per exercise, made at collection, used by the `student` fixture, closed.

This is their one owner. It makes each exercise's handle on the submission's shared worker (or
in-process), forks the workers ahead while the grader collects, hands a handle to the fixture and takes
it back when the exercise is done, keeping what the rest of the run needs of it: what confined its
worker and the time its code took. The session asks it for those; nothing reaches into a fixture.
"""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path
from typing import Callable

import pytest

import course_config
from graders.engine import request_plans
from graders.engine.allowance import Allowance
from graders.engine.collection import ExerciseModule
from graders.engine.progress import holds_code
from graders.engine.run_settings import RunSettings
from graders.engine.student import Backend, Student
from graders.sandbox import Confinement, Gap, InProcess, SubmissionWorker, WorkerUser


class Students:
    """Every exercise's `Student` in this run, and what they leave behind."""

    def __init__(self, settings: RunSettings, root_dir: Path, kept: Path | None) -> None:
        self.settings = settings
        self.root_dir = root_dir  # where pytest was started: messages name files from there
        self.kept = kept  # the kept values' file, beside which the run before's requests are (request_plans.py)
        self.allowance = Allowance(settings.budget.submission_seconds, "this submission", "submission_seconds")
        self.prestarted: dict[str, Student] = {}  # forked at collection, not yet handed to a fixture
        self.in_use: dict[str, Student] = {}  # handed to an exercise's `student` fixture, not yet given back
        self.shared_workers: dict[Path, SubmissionWorker] = {}  # one worker per submission folder (sandbox.shared)
        self.display_paths: dict[str, str] = {}  # how messages name each exercise's file
        self.module_paths: dict[str, Path] = {}  # each graded exercise's file in the submission
        self.reports: list[Confinement] = []  # what each worker said held, before any student code ran
        self.seconds: dict[str, float] = {}  # per exercise given back: the time its code took
        self._plans: dict[str, request_plans.Plans] | None = None  # the run before's requests, read when first needed

    def module_path(self, stub: Path, lesson: course_config.Lesson) -> Path:
        submission = self.settings.submission
        if submission is None:
            return stub
        if (submission / lesson.folder).is_dir() or submission.name != lesson.folder:
            return submission / lesson.folder / stub.name
        return submission / stub.name  # DIR given as the lesson folder itself

    def display(self, path: Path) -> str:
        """How messages name a student's file: relative to the submission folder; a file of an exercises/ folder
        from that folder (exercises/lesson01/views.py, wherever pytest was started); else relative to where pytest
        was started. Never a temporary or absolute path of the grading machine."""
        submission = self.settings.submission
        if submission is not None:
            try:
                return path.resolve().relative_to(submission.resolve()).as_posix()
            except ValueError:
                pass
        elif path.parent.parent.name == "exercises":
            return "/".join(path.parts[-3:])
        for base in (self.root_dir, course_config.ROOT):
            try:
                return path.resolve().relative_to(base.resolve()).as_posix()
            except ValueError:
                continue
        return f"{path.parent.name}/{path.name}"

    def make(self, node: ExerciseModule) -> Student:
        """A new handle on the module of `node`'s exercise in the submission."""
        settings = self.settings
        path = self.module_path(node.path, node.lesson)
        display = f"the answer cell of {node.exercise.slug}" if settings.answer_cells else self.display(path)
        self.display_paths[node.exercise.slug] = display
        self.module_paths[node.exercise.slug] = path
        make_backend: Callable[[], Backend]
        if settings.in_process:
            make_backend = functools.partial(InProcess, path)
        else:
            shared = self.shared_workers.get(path.parent)
            if shared is None:
                shared = SubmissionWorker(path.parent, settings.budget, settings.sandbox, self._plans_of(path.parent))
                self.shared_workers[path.parent] = shared
            # A driver module's one-time loading, which the zygote runs before it forks the worker.
            choose_warm_up = getattr(node.obj, "worker_warm_up", None)
            chosen = choose_warm_up(path) if choose_warm_up is not None else None
            shared.needs(f"{chosen.__module__}:{chosen.__qualname__}" if chosen else None)
            make_backend = functools.partial(shared.lease, path)
        allowance = Allowance(settings.budget.exercise_seconds, "this exercise", "exercise_seconds", self.allowance)
        return Student(path, display, settings.budget, node.mistakes(), make_backend, section=node.exercise.section,
                       frame_file="answer cell" if settings.answer_cells else "", allowance=allowance)

    def prestart(self, nodes: list[ExerciseModule]) -> None:
        """Fork the submission's worker now, before the grader runs any torch op (the forks
        are safe) and so that its sandbox set-up overlaps with grading."""
        for node in nodes:
            if node.exercise.slug not in self.prestarted:
                self.prestarted[node.exercise.slug] = self.make(node)
        for handle in self.prestarted.values():  # after every exercise said what its worker must be forked with
            handle.prestart()

    def take(self, node: ExerciseModule) -> Student:
        """The handle for an exercise's `student` fixture: the one forked ahead, or a new one."""
        slug = node.exercise.slug
        handle = self.prestarted.pop(slug, None) or self.make(node)
        self.in_use[slug] = handle
        return handle

    def using(self, slug: str) -> Student | None:
        """The handle an exercise's checks hold now, if they asked for one."""
        return self.in_use.get(slug)

    def give_back(self, slug: str) -> None:
        """The exercise is done: keep what confined its worker and the time its code took, and close it."""
        handle = self.in_use.pop(slug)
        self.reports += handle.confinements
        self.seconds[slug] = round(handle.allowance.spent, 3)
        handle.close()

    def close_all(self) -> None:
        """The end of the run: every handle not given back (-x stopped it early) and every worker."""
        for unused in [*self.prestarted.values(), *self.in_use.values()]:
            unused.close()
        for shared in self.shared_workers.values():
            shared.close()

    def asked(self) -> dict[str, request_plans.Plans]:
        """The requests this run made of each submission folder, where they differ from the run before's plan."""
        return {str(folder.resolve()): shared.asked for folder, shared in self.shared_workers.items()
                if list(shared.asked.items()) != [(m, r) for m, r in shared.plans.items() if m in shared.asked]}

    @functools.cache
    def holds_code(self, slug: str) -> bool:
        """Whether the exercise's file holds code of the student's (not only its stub)."""
        path = self.module_paths.get(slug)
        return path is not None and holds_code(path)

    def confinement(self) -> Confinement:
        """What confined this run's workers: the plan, or the weakest worker's report."""
        plan = self.settings.plan
        if self.settings.in_process:
            return Confinement(user=WorkerUser.GRADER_PROCESS, gaps=(Gap.IN_PROCESS,))
        weaker = [report for report in self.reports if not report.confined]
        if weaker and plan.confined:
            return weaker[0]
        # A worker's own report also says what walls held for it (cgroups, or rlimits as fallback).
        return dataclasses.replace(plan, walls=self.reports[0].walls) if self.reports else plan

    def _plans_of(self, folder: Path) -> request_plans.Plans:
        """The requests the run before made of this submission folder's modules, where this run keeps values."""
        if self.kept is None:
            return {}
        if self._plans is None:
            self._plans = request_plans.load(request_plans.path_beside(self.kept))
        return self._plans.get(str(folder.resolve()), {})


STUDENTS = pytest.StashKey[Students]()  # this run's, in config.stash: the `student` fixture takes its handles there
