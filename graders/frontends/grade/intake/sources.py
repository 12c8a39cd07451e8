"""Where a class's submissions come from, and each student's answers.

    COURSE/submitted/<student>/<assignment>/*.ipynb   an nbgrader course (after collect or zip_collect)
    an LMS download, as a folder or its .zip          Moodle, Canvas, Blackboard: ids from the LMS's names
    FOLDER/<student>/<lesson>/<slug>.py               folders laid out like exercises/ (cloned Classroom repos)
    FOLDER/**/<student>_<anything>.ipynb              other notebooks (or a .zip of them): ids by --student-pattern

The layout is recognised in that order (lms/<name>.py says how each LMS's is). Every file is read
through handed_in.py: regular files only, never through a link, size-capped. Whatever a hand-in
gets wrong (a link, a renamed notebook, two hand-ins of one student, a copied answer cell) is
noted for that student, never a stop.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from pathlib import Path, PurePosixPath

from graders.frontends.grade import lms
from graders.frontends.grade.intake import handed_in, hand_in_times
from graders.frontends.grade.intake.answers import load_nbformat, notebook_answers
from graders.frontends.grade.intake.handed_in import ANSWER_BYTES, NOTEBOOK_BYTES, Entry, Refused, problem
from graders.frontends.grade.intake.hand_ins import base_name, by_pattern, choose
from graders.frontends.grade.lms.download import HandIn, Layout, by_file_time

DEFAULT_STUDENT_PATTERN = r"(?P<student>[^_/\\]+)_"
NOTHING_HANDED_IN = "no answers handed in: neither a notebook nor an exercise's .py file"
MAX_OWN_MODULES = 20  # helper modules of one student's lesson folder; a folder of hundreds is no hand-in


class SourceError(ValueError):
    """SOURCE is not a layout the batch grader knows; the message says what it looked for."""


@dataclass
class Submission:
    """One student's answers, by exercise, and what was wrong with the hand-in."""

    student: str
    origin: str  # where the answers came from, for the instructor
    sources: dict[str, str] = field(default_factory=dict)
    # The student's own modules (`helpers.py` beside the exercise files, which those may import), by module name:
    # graded beside the answers, as the student's own run imports them (docs/students.md, "Your own modules").
    modules: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    # When the graded hand-in arrived (hand_in_times.py): zone-aware, or naive on an LMS's own clock (the term's
    # lms_time_zone places it); None where the source records no time.
    submitted_at: datetime | None = None
    submitted_how: str = ""  # where that time came from, for the late policy's notes (with no time: why, if known)


def find_submissions(source: Path, *, lesson: str, slugs: list[str], assignment: str | None = None,
                     student_pattern: str = DEFAULT_STUDENT_PATTERN,
                     unzipped_in: tzinfo | None = None) -> tuple[str, list[Submission]]:
    """The layout's name and every submission in it, sorted by student. `unzipped_in`: where an LMS download
    given as a folder was unzipped (its files' times depend on it; default: this machine's zone)."""
    source = source.expanduser()
    if not source.exists():
        raise SourceError(f"{source}: no such file or folder")
    pattern = _compiled(student_pattern)
    if source.is_file() and zipfile.is_zipfile(source):
        try:
            with handed_in.zip_entries(source) as entries:
                layout, found = _from_entries(entries, source, lesson, slugs, pattern, ZIP_TIMES)
        except Refused as error:
            raise SourceError(f"{source}: {error}") from None
        except (zipfile.BadZipFile, UnicodeDecodeError, NotImplementedError, EOFError, OSError) as error:
            raise SourceError(f"{source}: not a zip this grader can read ({error}); unpack it yourself and grade "
                              f"the folder") from None
        return ("zip of notebooks" if layout == "notebooks" else layout), found
    if source.is_file() and source.suffix.lower() == ".zip":
        raise SourceError(f"{source} is named .zip but is no zip archive (a download cut short, or a page saved "
                          f"in its place?): download it again, or give the folder it unpacks to")
    if not source.is_dir():
        raise SourceError(f"{source} is a file, neither a folder nor a .zip: give the folder or the zip of the "
                          f"class's hand-ins (an nbgrader course, an LMS download, student folders, notebooks)")
    if (source / "submitted").is_dir():
        submitted = source / "submitted"
        return "nbgrader course", _from_course(handed_in.walk(submitted), submitted, lesson, slugs,
                                               assignment or lesson)
    return _from_entries(handed_in.walk(source), source, lesson, slugs, pattern, folder_times(unzipped_in),
                         unzipped_in)


ZIP_TIMES = "from its zip entry (exact)"
FOLDER_TIMES_SAID = "read from the unzipped file's time"
FOLDER_TIMES = FOLDER_TIMES_SAID + ", as unzipped in {zone} (approximate)"


def folder_times(unzipped_in: tzinfo | None) -> str:
    """How a time from an unzipped folder's files is said: the zone it was read in (this machine's by default)."""
    zone = unzipped_in if unzipped_in is not None else f"this machine's zone, {machine_zone()}"
    return FOLDER_TIMES.format(zone=zone)


def machine_zone() -> str:
    """This machine's time zone, as its clock names it (CET, UTC, ...)."""
    return datetime.now().astimezone().tzname() or "local time"


def course_exercises(course: Path, assignment: str, lesson: str, slugs: list[str]) -> list[str]:
    """The exercises an nbgrader course's assignment has (its source notebook's answer cells, in
    lesson order); all of them where there is no source notebook to tell."""
    nbformat = load_nbformat()

    notebook = course / "source" / assignment / f"{lesson}.ipynb"
    try:
        cells = nbformat.read(notebook, as_version=4).cells
    except (OSError, ValueError):
        return slugs
    present = {c.metadata.get("nbgrader", {}).get("grade_id", "").removeprefix("answer-") for c in cells}
    return [slug for slug in slugs if slug in present] or slugs


def _compiled(student_pattern: str) -> re.Pattern:
    try:
        pattern = re.compile(student_pattern)
    except re.error as error:
        raise SourceError(f"--student-pattern {student_pattern!r}: not a regular expression ({error})") from None
    if "student" not in pattern.groupindex:
        raise SourceError(f"--student-pattern {student_pattern!r}: it needs a group named student, e.g. "
                          f"{DEFAULT_STUDENT_PATTERN!r}")
    return pattern


def _from_entries(entries: list[Entry], root: Path, lesson: str, slugs: list[str], pattern: re.Pattern,
                  times: str, unzipped_in: tzinfo | None = None) -> tuple[str, list[Submission]]:
    layout = lms.recognise_download(entries, unzipped_in)
    if layout is not None:
        if layout.file_times:  # each student's time then says whether it is exact (a zip's) or approximate
            layout.clock = f"{layout.clock}, {times}"
        found = [_from_hand_ins(student, hand_ins, layout, root, lesson, slugs)
                 for student, hand_ins in sorted(layout.students.items())]
        for submission in found:
            for name in layout.others.get(submission.student, []):
                submission.problems.append(f"{name} was handed in too; it is no answer the grader reads: read it "
                                           f"yourself")
        return layout.name, found
    folders = _from_folders(entries, root, lesson, slugs)
    if folders:
        return "student folders", folders
    layout = by_pattern(entries, pattern)
    found = [_from_hand_ins(student, hand_ins, layout, root, lesson, slugs)
             for student, hand_ins in sorted(layout.students.items())]
    taken = {s.student for s in found}
    for entry in layout.unnamed:
        student = entry.path.stem if entry.path.stem not in taken else f"{entry.path.stem} ({entry.path})"
        taken.add(student)
        submission = _from_hand_ins(student, [by_file_time(entry, entry.path.name)], layout, root, lesson, slugs)
        submission.problems.insert(0, f"no student id in the file name {entry.path.name!r} (see --student-pattern); "
                                      f"graded as {student!r}")
        found.append(submission)
    if found:
        return "notebooks", found
    wrapper = _one_wrapping_folder(entries)
    if wrapper is not None:
        raise SourceError(f"{root}: found no submissions at its top, where everything is inside one folder, "
                          f"{wrapper}/: the download is one level down; "
                          + (f"grade a zip made from inside {wrapper}/ (its times stay exact), or unzip it and grade "
                             f"the folder {wrapper}" if root.is_file() else f"grade {root / wrapper}"))
    raise SourceError(f"{root}: found no submissions. Expected an nbgrader course (submitted/<student>/<assignment>/), "
                      f"an LMS download (Moodle, Canvas, Blackboard), folders <student>/{lesson}/<exercise>.py, or "
                      f"notebooks named like <student>_<anything>.ipynb")


def _one_wrapping_folder(entries: list[Entry]) -> str | None:
    """The one folder every entry lies in (a download zipped again, or unzipped into a folder of its own), or None."""
    tops = {entry.path.parts[0] for entry in entries if entry.path.parts}
    if len(tops) != 1 or not any(len(entry.path.parts) > 1 for entry in entries):
        return None
    return tops.pop()


def _from_hand_ins(student: str, hand_ins: list[HandIn], layout: Layout, root: Path, lesson: str,
                   slugs: list[str]) -> Submission:
    """One student's answers from the files a layout gave them: a notebook, else `<slug>.py` files."""
    submission = Submission(student, str(root))
    notebooks = [h for h in hand_ins if h.entry.path.suffix == ".ipynb"]
    scripts = [h for h in hand_ins if h.entry.path.suffix == ".py"]
    for link in (h for h in hand_ins if not h.entry.path.suffix):  # where a folder of answers could be
        submission.problems.append(problem(link.entry.path, link.entry.refused))
    if scripts and not notebooks:
        missing = []
        others = sorted({_exercise_file(base_name(h)) for h in scripts if _exercise_file(base_name(h)) not in slugs})
        for name in others:
            if not _own_module_name(name):
                submission.problems.append(f"{name}.py is no exercise's file (they are named like {slugs[0]}.py) "
                                           f"nor a module Python can import; it was not read")
                continue
            named = [h for h in scripts if _exercise_file(base_name(h)) == name]
            chosen, problems = choose(named, ANSWER_BYTES, layout.rule, f"{name}.py")
            submission.problems += [f"{name}.py: {p}" for p in problems]
            if chosen is not None:
                _read_module(submission, name, chosen.entry)
        for slug in slugs:
            named = [h for h in scripts if _exercise_file(base_name(h)) == slug]
            chosen, problems = choose(named, ANSWER_BYTES, layout.rule, f"{slug}.py")
            submission.problems += [f"{slug}: {p}" for p in problems]
            if chosen is not None:
                _read_into(submission, slug, chosen.entry)
                _arrived(submission, chosen, layout)
            elif not named:
                missing.append(f"{slug}.py")
        _missing(submission, missing)
        return submission
    chosen, problems = choose(notebooks, NOTEBOOK_BYTES, layout.rule, f"{lesson}.ipynb")
    submission.problems += problems
    if scripts:
        submission.problems.append("a notebook and .py files were handed in; the notebook was graded")
    if chosen is None and notebooks:
        submission.problems.append("no notebook that could be read handed in; every exercise scores 0")
    elif chosen is None:  # a class may hand in .py files: "no notebook" would tell them the wrong thing to add
        submission.problems.append(f"{NOTHING_HANDED_IN} (such as {slugs[0]}.py); every exercise scores 0")
    else:
        _read_notebook(submission, chosen.entry, root, slugs)
        _arrived(submission, chosen, layout)
    return submission


def _exercise_file(name: str) -> str:
    """The exercise a .py file answers: `views.py`, and the names an LMS gives the same file uploaded again
    (`views (1).py`, `views(2).py`); its choose() then takes the latest of them."""
    return re.sub(r"\s*\(\d+\)$", "", name.removesuffix(".py"))


def _arrived(submission: Submission, hand_in: HandIn, layout: Layout) -> None:
    """Keep the latest arrival of the hand-ins graded (several .py files: the last one counts)."""
    if hand_in.arrived is not None and layout.clock and (submission.submitted_at is None
                                                         or hand_in.arrived > submission.submitted_at):
        submission.submitted_at, submission.submitted_how = hand_in.arrived, layout.clock


def _from_folders(entries: list[Entry], root: Path, lesson: str, slugs: list[str]) -> list[Submission]:
    """Folders <student>/<lesson>/<slug>.py; a link where such a folder would be is that student's problem."""
    by_student: dict[str, dict[PurePosixPath, Entry]] = {}
    for entry in entries:
        if len(entry.path.parts) >= 2 and entry.path.parts[1] == lesson:
            by_student.setdefault(entry.path.parts[0], {})[entry.path] = entry
    if not by_student:
        return []
    for entry in entries:
        if len(entry.path.parts) == 1 and entry.refused:
            by_student.setdefault(entry.path.name, {})[entry.path] = entry
    found = [_from_folder(student, files, root, lesson, slugs) for student, files in sorted(by_student.items())]
    for submission in found:  # a cloned repository: its last commit (the student's clock, said so)
        # where there is no time, the reason is kept in its place: the term's notes say why the time is unknown
        submission.submitted_at, submission.submitted_how = hand_in_times.git_commit_time(root / submission.student)
    return found


def _from_folder(student: str, files: dict[PurePosixPath, Entry], root: Path, lesson: str,
                 slugs: list[str]) -> Submission:
    submission = Submission(student, str(root / student))
    for where in (PurePosixPath(student), PurePosixPath(student, lesson)):
        if where in files and files[where].refused:
            submission.problems.append(f"{problem(where, files[where].refused)}; every exercise scores 0")
            return submission
    missing = []
    for slug in slugs:
        entry = files.get(PurePosixPath(student, lesson, f"{slug}.py"))
        if entry is None:
            missing.append(f"{lesson}/{slug}.py")
        else:
            _read_into(submission, slug, entry, shown=PurePosixPath(lesson, f"{slug}.py"))
    # The student's own modules: the other .py files directly in the lesson folder, as their own run imports them.
    for path, entry in sorted(files.items()):
        if (path.parent == PurePosixPath(student, lesson) and path.suffix == ".py" and path.stem not in slugs
                and not entry.folder):
            if _own_module_name(path.stem):
                _read_module(submission, path.stem, entry, shown=PurePosixPath(lesson, path.name))
            else:
                submission.problems.append(f"{lesson}/{path.name} is no exercise's file nor a module the answers can "
                                           f"import by its name; it was not read")
    _missing(submission, missing)
    return submission


def _own_module_name(name: str) -> bool:
    """Whether `name`.py is a module a student's code can import by name (helpers, my_utils), never a path."""
    return name.isidentifier() and not name.startswith("__")


def _read_module(submission: Submission, name: str, entry: Entry, shown: PurePosixPath | None = None) -> None:
    """Read one of the student's own modules, as handed in: a regular file, size-capped; a refusal is a problem
    (an exercise that imports it then fails to import, and says which module it missed)."""
    where = shown or entry.path
    if len(submission.modules) >= MAX_OWN_MODULES:
        submission.problems.append(f"{where}: more than {MAX_OWN_MODULES} modules of the student's own; "
                                   f"it was not read")
        return
    why = entry.unreadable(ANSWER_BYTES)
    try:
        if why:
            raise Refused(problem(where, why))
        submission.modules[name] = handed_in.text(entry.read(ANSWER_BYTES))
    except Refused as refused:
        submission.problems.append(f"{refused} (a module of the student's own: what imports it cannot be graded)")


def _missing(submission: Submission, files: list[str]) -> None:
    """One line for the exercises whose file was not handed in (a page of them would bury the other problems)."""
    if len(files) == 1:
        submission.problems.append(f"no file {files[0]} handed in; that exercise scores 0")
    elif files:
        submission.problems.append(f"no file handed in for {len(files)} exercises ({', '.join(files)}); "
                                   f"they score 0")


def _from_course(entries: list[Entry], submitted: Path, lesson: str, slugs: list[str],
                 assignment: str) -> list[Submission]:
    """submitted/<student>/<assignment>/*.ipynb; the notebook autograde grades is the one named <lesson>.ipynb."""
    by_student: dict[str, list[Entry]] = {}
    for entry in entries:
        by_student.setdefault(entry.path.parts[0], []).append(entry)
    found = []
    for student, own in sorted(by_student.items()):
        top = next((e for e in own if e.path == PurePosixPath(student)), None)
        if top is not None and not (top.folder or top.refused):
            continue  # a stray file in submitted/, no student's folder
        where = PurePosixPath(student, assignment)
        submission = Submission(student, str(submitted / where))
        submission.submitted_at, submission.submitted_how = hand_in_times.nbgrader_timestamp(submitted, student,
                                                                                             assignment)
        blocked = [e for e in own if e.refused and e.path in (PurePosixPath(student), where)]
        notebooks = [by_file_time(e, e.path.name) for e in own if e.path.parent == where and e.path.suffix == ".ipynb"]
        if blocked:
            submission.problems.append(f"{problem(PurePosixPath('submitted', blocked[0].path), blocked[0].refused)}; "
                                       f"every exercise scores 0")
        elif not notebooks:
            submission.problems.append(f"no notebook in submitted/{student}/{assignment}/; every exercise scores 0")
        else:
            _from_course_notebooks(submission, notebooks, submitted, lesson, slugs)
        found.append(submission)
    return found


def _from_course_notebooks(submission: Submission, notebooks: list[HandIn], submitted: Path, lesson: str,
                           slugs: list[str]) -> None:
    exact = [h for h in notebooks if h.entry.path.name == f"{lesson}.ipynb"]
    if exact:  # the name autograde grades wins over any clock
        chosen, problems = choose(exact, NOTEBOOK_BYTES, "name", f"{lesson}.ipynb")
        problems += [problem(h.entry.path, h.entry.unreadable(NOTEBOOK_BYTES)) for h in notebooks
                     if h not in exact and h.entry.unreadable(NOTEBOOK_BYTES)]
        others = [str(h.entry.path.name) for h in notebooks if h not in exact]
        if others and chosen is not None:
            problems.append(f"{len(notebooks)} notebooks handed in ({', '.join(sorted(others))} besides "
                            f"{lesson}.ipynb); graded {lesson}.ipynb, the name nbgrader autograde grades")
    else:
        chosen, problems = choose(notebooks, NOTEBOOK_BYTES, "file modification time", f"{lesson}.ipynb")
        if chosen is not None:
            problems.insert(0, f"the notebook is named {chosen.entry.path.name!r}, not {lesson}.ipynb (renamed?); "
                               f"graded it anyway")
    submission.problems += problems
    if chosen is None:
        submission.problems.append("no notebook that could be read; every exercise scores 0")
    else:
        _read_notebook(submission, chosen.entry, submitted, slugs)


def _read_notebook(submission: Submission, entry: Entry, root: Path, slugs: list[str]) -> None:
    submission.origin = f"{root}/{entry.path}"
    try:
        data = entry.read(NOTEBOOK_BYTES)
    except Refused as refused:  # changed since it was listed, or a zip entry that unpacks too big
        submission.problems.append(f"{refused}; every exercise scores 0")
        return
    answers = notebook_answers(handed_in.text(data), entry.path.name, slugs)
    submission.sources = answers.sources
    submission.problems += answers.problems


def _read_into(submission: Submission, slug: str, entry: Entry, shown: PurePosixPath | None = None) -> None:
    why = entry.unreadable(ANSWER_BYTES)
    if why:
        submission.problems.append(f"{slug}: {problem(shown or entry.path, why)}; it scores 0")
        return
    try:
        submission.sources[slug] = handed_in.text(entry.read(ANSWER_BYTES))
    except Refused as refused:
        submission.problems.append(f"{slug}: {refused}; it scores 0")
