"""The batch grader for real: `python -m graders grade` on a mixed class, with real grading
processes, zygotes and workers. Its scores must equal `pytest exercises/ --submission` for the
same code; a broken or hostile submission never stops it; it resumes after kill -9 and regrades
only what changed; every output format parses back to the stored results."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

import course_config
from conftest import STUBS, batch_environment, keeping_in
from mistake_catalogue import submission
from graders.engine.course_version import course_digest
from graders.frontends.nbgrader.notebook import lesson_notebook

ROOT = course_config.ROOT
LESSON = course_config.LESSON_01
SLUGS = [e.slug for e in LESSON.exercises]
READS_THE_REFERENCE = (ROOT / "reference" / "lesson01" / "sin_exp_derivative.py").read_text().replace(
    "    return torch.sin(x) * torch.exp(-x)\n",
    f"    exec(open({str(ROOT / 'reference' / 'lesson01' / 'sin_exp_derivative.py')!r}).read(), globals())\n"
    "    return torch.sin(x) * torch.exp(-x)\n", 1)


def _reference(slug: str) -> str:
    return (ROOT / "reference" / "lesson01" / f"{slug}.py").read_text()


def _stub(slug: str) -> str:
    return (STUBS / "lesson01" / f"{slug}.py").read_text()


def _class() -> dict[str, dict[str, str]]:
    """Each student's files: solved, untouched, mistaken, partly solved, broken, hostile."""
    solved = {slug: _reference(slug) for slug in SLUGS}
    return {
        "ann": solved,
        "ben": {slug: _stub(slug) for slug in SLUGS},
        "cat": {**solved, "sin_exp_derivative": submission("sin_exp_derivative", "sign_error"),
                "learning_rate": submission("learning_rate", "never_zeroed")},
        "dan": {slug: _reference(slug) if i % 2 else _stub(slug) for i, slug in enumerate(SLUGS)},
        "eve": {**solved, "views": "def as_grid(x, rows:\n    pass\n", "quick_check": "import os\nos._exit(3)\n"},
        "fay": {**solved, "sin_exp_derivative": READS_THE_REFERENCE,
                "shape_bugs": _reference("shape_bugs") + "\nimport socket\nsocket.socket()\n"},
        "gus": {slug: source for slug, source in solved.items() if slug != "micrograd"},  # a file missing
    }


def _write_folders(root: Path, students: dict[str, dict[str, str]]) -> Path:
    for student, files in students.items():
        (root / student / "lesson01").mkdir(parents=True, exist_ok=True)
        for slug, source in files.items():
            (root / student / "lesson01" / f"{slug}.py").write_text(source)
    return root


def _grade(source: Path, out: Path, *extra: str, check: bool = False) -> subprocess.CompletedProcess:
    run = subprocess.run([sys.executable, "-m", "graders", "grade", str(source), "--out", str(out), *extra],
                         capture_output=True, text=True, timeout=1200, cwd=ROOT, env=batch_environment())
    if check:
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    return run


# One process runs `pytest exercises/ --submission DIR --json OUT` for each student in turn.
_PYTEST_EACH = """
import sys, pytest
for folder, out in zip(sys.argv[1::2], sys.argv[2::2]):
    pytest.main(["exercises", "--submission", folder, "--json", out,
                 "-p", "no:cacheprovider", "-q", "--plots", out + ".plots"])
"""


def _pytest_scores(folders: dict[str, Path], scratch: Path) -> dict[str, dict]:
    runs = [str(x) for student, folder in folders.items() for x in (folder, scratch / f"{student}.json")]
    # Each student's run after the first is a usual run (the values kept by the one before, kept_values.py): a
    # student's score is the same either way, and the first run's drawing and reference are paid once.
    subprocess.run([sys.executable, "-c", _PYTEST_EACH, *runs], cwd=ROOT, capture_output=True, timeout=1200,
                   env=keeping_in(scratch / "kept"))
    return {student: json.loads((scratch / f"{student}.json").read_text()) for student in folders}


@pytest.fixture(scope="module")
def batch(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = _write_folders(tmp_path_factory.mktemp("class"), _class())
    out = tmp_path_factory.mktemp("results")
    run = _grade(root, out, "-j", "2")
    records = {p.stem: json.loads(p.read_text()) for p in (out / "students").glob("*.json")}
    return {"root": root, "out": out, "run": run, "records": records}


def test_every_student_is_graded_and_the_batch_ends(batch: dict) -> None:
    assert batch["run"].returncode == 0, batch["run"].stdout[-2000:] + batch["run"].stderr[-2000:]
    assert set(batch["records"]) == set(_class())
    assert all(not r["error"] for r in batch["records"].values())


def test_scores_equal_what_pytest_gives_each_student(batch: dict, tmp_path: Path) -> None:
    expected = _pytest_scores({s: batch["root"] / s for s in _class()}, tmp_path)
    for student, result in expected.items():
        record = batch["records"][student]
        got = {e["slug"]: e["score"] for e in record["exercises"]}
        want = {e["slug"]: e["score"] for e in result["exercises"]}
        assert got == pytest.approx(want), student
        assert record["score"] == pytest.approx(result["score"]), student


def test_the_extremes_and_the_hostile_ones(batch: dict) -> None:
    records = batch["records"]
    assert records["ann"]["score"] == pytest.approx(LESSON.points)
    assert records["ben"]["score"] == 0
    assert records["fay"]["score"] < LESSON.points  # reading the reference earned nothing
    assert records["fay"]["confined"] is True
    assert any("no file lesson01/micrograd.py" in p for p in records["gus"]["problems"])


def test_grades_csv_has_a_column_per_exercise_and_per_check_equal_to_the_json(batch: dict) -> None:
    with open(batch["out"] / "grades.csv", newline="") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert set(rows) == set(batch["records"])
    for student, record in batch["records"].items():
        assert float(rows[student]["score"]) == pytest.approx(record["score"])
        for exercise in record["exercises"]:
            assert float(rows[student][exercise["slug"]]) == pytest.approx(exercise["score"])
            for check in exercise["checks"]:
                assert float(rows[student][f"{exercise['slug']}.{check['id']}"]) == pytest.approx(check["score"])


def test_mistakes_csv_and_the_report_count_what_the_json_holds(batch: dict) -> None:
    counted: dict[tuple[str, str, str], int] = {}
    for record in batch["records"].values():
        for exercise in record["exercises"]:
            for check in exercise["checks"]:
                if check.get("mistake") and not check["passed"]:
                    key = (exercise["slug"], check["id"], check["mistake"])
                    counted[key] = counted.get(key, 0) + 1
    assert counted, "the class should make some named mistakes"
    with open(batch["out"] / "mistakes.csv", newline="") as handle:
        rows = {(r["exercise"], r["check"], r["mistake"]): r for r in csv.DictReader(handle)}
    report = (batch["out"] / "report.html").read_text()
    size = len(batch["records"])
    for key, count in counted.items():
        assert int(rows[key]["count"]) == count, key
        assert float(rows[key]["share"]) == pytest.approx(count / size, abs=1e-3)
        assert f"{key[2]}: {count} (" in report.replace("&#x27;", "'")


def test_gradescope_and_classroom_outputs_carry_every_check(batch: dict) -> None:
    for student, record in batch["records"].items():
        results = json.loads((batch["out"] / "gradescope" / student / "results.json").read_text())
        assert results["score"] == pytest.approx(record["score"])
        checks = [c for e in record["exercises"] for c in e["checks"]]
        assert len(results["tests"]) == len(checks)
        for test, check in zip(results["tests"], checks):
            assert set(test) >= {"name", "score", "max_score", "output", "visibility"}
            assert test["score"] == check["score"] and test["max_score"] == check["points"]
            assert test["visibility"] == ("after_published" if check["hidden"] else "visible")
        runners = json.loads((batch["out"] / "classroom" / f"{student}.json").read_text())
        total = sum(t["score"] for runner in runners.values() for t in runner["tests"])
        assert total == pytest.approx(record["score"])
        assert all(set(t) >= {"name", "score", "status", "message"} for r in runners.values() for t in r["tests"])


def test_a_hidden_checks_details_stay_out_of_what_students_get(batch: dict) -> None:
    record = batch["records"]["cat"]
    hidden = [c for e in record["exercises"] for c in e["checks"] if c["hidden"] and not c["passed"]]
    assert hidden
    html = (batch["out"] / "feedback" / "cat.html").read_text()
    instructor = (batch["out"] / "instructor" / "cat.html").read_text()
    for check in hidden:
        # Its headline holds what its fresh inputs gave (the details below it, or "same cause as above"): the
        # instructor's page shows it, the student's does not.
        headline = check["message"].splitlines()[0]
        assert headline in instructor and headline not in html, check
        assert check["shown"] != check["message"]


def test_a_rerun_grades_only_the_student_who_changed(batch: dict) -> None:
    (batch["root"] / "dan" / "lesson01" / "views.py").write_text(_reference("views"))
    run = _grade(batch["root"], batch["out"], check=True)
    assert "6 unchanged since the last run, 1 to grade" in run.stdout, run.stdout
    record = json.loads((batch["out"] / "students" / "dan.json").read_text())
    assert next(e for e in record["exercises"] if e["slug"] == "views")["score"] == pytest.approx(
        LESSON.exercise("views").points)
    (batch["out"] / "grades.csv").unlink()
    again = _grade(batch["root"], batch["out"], check=True)  # nothing to grade: the template ends at once
    assert "7 unchanged since the last run, 0 to grade" in again.stdout, again.stdout
    assert (batch["out"] / "grades.csv").is_file()


def test_a_class_graded_into_a_new_folder_starts_from_the_reference_values_kept_by_an_earlier_run(
        tmp_path: Path) -> None:
    root = _write_folders(tmp_path / "class", {"ann": {slug: _reference(slug) for slug in SLUGS}})
    kept = tmp_path / "cache"
    kept.mkdir()
    (kept / "batch-expected-0123456789abcdef.json").write_text("{}")  # another version's: removed once this one's is
    (kept / "expected-0123456789abcdef.json").write_text("{}")  # a student's run's: not the batch's to remove
    environment = {**os.environ, "GRADERS_CACHE_DIR": str(kept)}
    runs = [subprocess.run([sys.executable, "-m", "graders", "grade", str(root), "--out", str(tmp_path / out), "-j", "1"],
                           capture_output=True, text=True, timeout=1200, cwd=ROOT, env=environment)
            for out in ("first", "second")]
    for run in runs:
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "grading the reference once" in runs[0].stdout and "kept from an earlier run" not in runs[0].stdout
    assert "grading the reference once" not in runs[1].stdout and "kept from an earlier run" in runs[1].stdout
    assert sorted(p.name for p in kept.iterdir()) == [f"batch-expected-{course_digest()[:16]}.json",
                                                      "expected-0123456789abcdef.json"]
    first, second = (json.loads((tmp_path / out / "students" / "ann.json").read_text()) for out in ("first", "second"))
    assert first["score"] == second["score"] == pytest.approx(LESSON.points)


def test_kill_9_in_the_middle_and_a_rerun_give_every_student_once(tmp_path: Path) -> None:
    students = {f"s{i:02d}": {slug: _reference(slug) for slug in SLUGS} for i in range(6)}
    root = _write_folders(tmp_path / "class", students)
    out = tmp_path / "out"
    first = subprocess.Popen([sys.executable, "-m", "graders", "grade", str(root), "--out", str(out), "-j", "1"],
                             cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                             env=batch_environment())
    deadline = time.monotonic() + 600
    while len(list((out / "students").glob("*.json"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    killed = _session(first.pid)  # the batch, its grading processes, zygotes and workers
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    _wait_dead(killed)  # the grading processes die with the batch, a moment later (PR_SET_PDEATHSIG)
    # graders-<what>-<pid>-<random>: another kind of folder (nbgrader's graders-autograde-values-...) is no worker's
    left = [p for p in Path(tempfile.gettempdir()).glob("graders-*-*-*")
            if p.name.split("-")[2].isdigit() and int(p.name.split("-")[2]) in killed]
    assert left, "the killed batch left its staging and workers' folders (nothing cleaned them up)"
    done_before = len(list((out / "students").glob("*.json")))
    assert 2 <= done_before < 6
    run = _grade(root, out, check=True)
    assert f"{done_before} unchanged since the last run, {6 - done_before} to grade" in run.stdout
    records = [json.loads(p.read_text()) for p in (out / "students").glob("*.json")]
    assert sorted(r["student"] for r in records) == sorted(students)
    assert all(r["score"] == pytest.approx(LESSON.points) for r in records)
    assert not list(out.rglob("*.partial"))
    assert not [p for p in left if p.exists()], "the rerun cleared what the killed batch left in the temporary folder"


def test_a_grading_service_whose_zygote_dies_gives_no_result_and_the_student_is_graded_again(tmp_path: Path) -> None:
    # The zygote is what workers are forked from; a grading service that has begun grading holds the
    # reference, so it must not fork another one. Killed from outside, the zygote takes its worker with
    # it: the service ends without a result, and a fresh one grades the student in full.
    slow_import = "import time\ntime.sleep(3)\n" + _reference("sin_exp_derivative")
    root = _write_folders(tmp_path / "class", {"ann": {**{slug: _reference(slug) for slug in SLUGS},
                                                       "sin_exp_derivative": slow_import}})
    out = tmp_path / "out"
    batch = subprocess.Popen([sys.executable, "-m", "graders", "grade", str(root), "--out", str(out), "-j", "1"],
                             cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             env={**os.environ, "GRADERS_CACHE_DIR": "off"})  # the reference is graded here
    assert batch.stdout is not None
    printed = ""
    while "stored in" not in printed and batch.poll() is None:  # the reference's workers are done by then
        printed += batch.stdout.readline()
    os.kill(_zygote_below(batch.pid), signal.SIGKILL)
    printed += batch.communicate(timeout=600)[0]
    assert batch.returncode == 0, printed[-3000:]
    record = json.loads((out / "students" / "ann.json").read_text())
    assert record["score"] == pytest.approx(LESSON.points) and record["error"] == "", record["error"]
    first, second = ((out / "logs" / f"service-0-{n}.log").read_text() for n in (1, 2))
    assert "grading stopped, with no result" in first and "zygote" in first
    assert "grading stopped" not in second


def _zygote_below(root: int) -> int:
    """The zygote among `root`'s descendants: the parent of a confined worker (waits for one, up to 120 s)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        parents = {}
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                    confined = "Seccomp:\t2" in (entry / "status").read_text()
                except (OSError, IndexError, ValueError):
                    continue
                if confined:
                    parents.setdefault(-int(entry.name), 0)  # a worker, marked by its negated pid
        for worker in [-key for key in parents if key < 0]:
            chain, pid = [], worker
            while pid in parents and pid > 1:
                pid = parents[pid]
                chain.append(pid)
            if root in chain:
                return chain[0]
        time.sleep(0.05)
    raise AssertionError("no worker appeared below the batch")


def _wait_dead(pids: set[int]) -> None:
    """Until each process has ended: gone, or a zombie (pid 1 may never reap an orphan)."""
    deadline = time.monotonic() + 60
    for pid in pids:
        while time.monotonic() < deadline:
            try:
                if Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] in "ZX":
                    break
            except OSError:
                break
            time.sleep(0.05)


def _session(leader: int) -> set[int]:
    members = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[3]) == leader:
                    members.add(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return members


def test_notebooks_from_an_lms_zip_with_broken_hand_ins(tmp_path: Path) -> None:
    notebook = lesson_notebook(LESSON, list(LESSON.exercises), notebook="lesson01.ipynb", exercise_seconds=180)
    archive = tmp_path / "downloads.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("alice_lesson01.ipynb", nbformat.writes(_answered(notebook, {})))
        copied = _answered(notebook, {})
        original = next(c for c in copied.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "answer-views")
        copied.cells.append(nbformat.v4.new_code_cell(original.source, metadata=original.metadata))
        bundle.writestr("folder/bob_attempt2.ipynb", nbformat.writes(copied))
        bundle.writestr("carol_lesson01.ipynb", "this is not json")
        bundle.writestr("nameless.ipynb", nbformat.writes(_answered(notebook, {})))
    out = tmp_path / "out"
    run = _grade(archive, out, check=True)
    records = {p.stem: json.loads(p.read_text()) for p in (out / "students").glob("*.json")}
    assert set(records) == {"alice", "bob", "carol", "nameless"}, run.stdout
    assert records["alice"]["score"] == pytest.approx(LESSON.points)
    assert any("2 answer cells" in p for p in records["bob"]["problems"])
    assert records["carol"]["score"] == 0 and "not a notebook" in records["carol"]["problems"][0]
    assert "no student id in the file name" in records["nameless"]["problems"][0]


SECRET = "SECRET first line of a file only the grader's user may read 9c1e"


def _outputs_text(out: Path) -> str:
    """Everything the batch wrote (records, feedback, tables, report, platform files, logs), as text."""
    return "\n".join(p.read_bytes().decode("utf-8", "replace") for p in out.rglob("*") if p.is_file())


def test_links_in_cloned_repos_earn_nothing_and_show_nothing_of_what_they_point_to(tmp_path: Path) -> None:
    secret = tmp_path / "private" / "shadow"
    secret.parent.mkdir()
    secret.write_text(f"{SECRET}\nsecond line\n")
    secret.chmod(0o600)
    honest = ["views", "sin_exp_derivative"]
    root = _write_folders(tmp_path / "class", {"ann": {slug: _reference(slug) for slug in honest},
                                                "mallory": {"shape_bugs": _reference("shape_bugs")}})
    mallory = root / "mallory" / "lesson01"
    os.symlink(ROOT / "reference" / "lesson01" / "views.py", mallory / "views.py")  # the reference
    os.symlink("../../ann/lesson01/sin_exp_derivative.py", mallory / "sin_exp_derivative.py")  # a classmate
    os.symlink(secret, mallory / "quick_check.py")  # a file Mallory may not read: its first line a SyntaxError
    (root / "eve").mkdir()
    os.symlink("../ann/lesson01", root / "eve" / "lesson01")  # a whole folder
    out = tmp_path / "out"
    _grade(root, out, check=True)
    records = {p.stem: json.loads(p.read_text()) for p in (out / "students").glob("*.json")}
    assert set(records) == {"ann", "mallory", "eve"}
    assert records["ann"]["score"] == pytest.approx(sum(LESSON.exercise(s).points for s in honest))
    assert records["mallory"]["score"] == pytest.approx(LESSON.exercise("shape_bugs").points)  # its honest part
    assert records["eve"]["score"] == 0
    for linked in ("views", "sin_exp_derivative", "quick_check"):
        assert any(p.startswith(f"{linked}: lesson01/{linked}.py is a symbolic link: it was not read")
                   for p in records["mallory"]["problems"]), records["mallory"]["problems"]
    assert records["eve"]["problems"][0].startswith("eve/lesson01 is a symbolic link: it was not read")
    for written in ("grades.csv", "mistakes.csv", "report.html", "feedback/mallory.html", "gradescope/mallory",
                    "classroom/mallory.json"):
        assert (out / written).exists(), written
    assert SECRET not in _outputs_text(out) and "second line" not in _outputs_text(out)


def test_a_moodle_zip_takes_ids_from_participant_folders_and_refuses_what_escapes(tmp_path: Path) -> None:
    notebook = lesson_notebook(LESSON, list(LESSON.exercises), notebook="lesson01.ipynb", exercise_seconds=180)
    stubs = _answered(notebook, {slug: _stub(slug) for slug in SLUGS})
    alice, mallory, bob = ("Alice Smith_12_assignsubmission_file_", "Mallory Evil_17_assignsubmission_file_",
                           "Bob Jones_20_assignsubmission_file_")
    link = zipfile.ZipInfo(f"{mallory}/lesson01.ipynb")
    link.external_attr = (0o120777) << 16  # a link entry to the reference's solved notebook
    archive = tmp_path / "moodle.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as bundle:
        bundle.writestr(f"{alice}/lesson01.ipynb", nbformat.writes(_answered(notebook, {})))
        bundle.writestr(f"{mallory}/alice_lesson01.ipynb", nbformat.writes(stubs))  # named after Alice
        bundle.writestr(link, str(ROOT / "reference"))
        bundle.writestr(f"{mallory}/../../../escape.ipynb", nbformat.writes(_answered(notebook, {})))
        bundle.writestr(f"{mallory}/bomb.ipynb", b" " * 2**26)
        bundle.writestr(zipfile.ZipInfo(f"{bob}/lesson01.ipynb", (2024, 5, 1, 10, 0, 0)), nbformat.writes(stubs))
        bundle.writestr(zipfile.ZipInfo(f"{bob}/lesson01 (2).ipynb", (2024, 5, 2, 9, 0, 0)),
                        nbformat.writes(_answered(notebook, {})))
    out = tmp_path / "out"
    run = _grade(archive, out, check=True)
    assert "(Moodle download)" in run.stdout, run.stdout
    records = {r["student"]: r for r in (json.loads(p.read_text()) for p in (out / "students").glob("*.json"))}
    assert set(records) == {"12", "17", "20"}  # Mallory is there, under her own id
    assert records["12"]["score"] == pytest.approx(LESSON.points)
    assert records["17"]["score"] == 0
    assert records["20"]["score"] == pytest.approx(LESSON.points)  # the later of Bob's two, by Moodle's time
    problems = records["17"]["problems"]
    assert any(p.startswith(f"{mallory}/lesson01.ipynb is a symbolic link stored in the archive") for p in problems)
    assert any(p.startswith(f"{mallory}/escape.ipynb has a name in the archive that reaches outside it") for p in problems)
    assert any(p.startswith(f"{mallory}/bomb.ipynb is 64.0 MiB, over the 16.0 MiB") for p in problems)
    assert records["20"]["problems"][0].startswith(f"2 hand-ins for this student: {bob}/lesson01.ipynb (modified "
                                                   f"2024-05-01 10:00:00); {bob}/lesson01 (2).ipynb (modified "
                                                   f"2024-05-02 09:00:00). Graded {bob}/lesson01 (2).ipynb")
    assert not (tmp_path / "escape.ipynb").exists() and not list(tmp_path.parent.glob("escape.ipynb"))


def _answered(notebook: nbformat.NotebookNode, answers: dict[str, str]) -> nbformat.NotebookNode:
    """The source notebook (reference answers inside) with some answer cells replaced."""
    copy = nbformat.from_dict(json.loads(json.dumps(notebook)))
    for cell in copy.cells:
        slug = cell.metadata.get("nbgrader", {}).get("grade_id", "").removeprefix("answer-")
        if slug in answers:
            cell.source = f"%%answer {slug}\n{answers[slug]}"
    return copy


def test_a_source_that_is_not_a_class_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    run = _grade(tmp_path / "empty", tmp_path / "out")
    assert run.returncode != 0 and "found no submissions" in run.stderr
    run = _grade(tmp_path / "missing", tmp_path / "out")
    assert "no such file or folder" in run.stderr


def test_an_nbgrader_course_gets_the_gradebook_autograde_would_give(tmp_path: Path) -> None:
    from nbgrader.api import Gradebook

    from graders.frontends.nbgrader import build

    slugs = ["sin_exp_derivative", "views"]
    course = tmp_path / "course"
    build.main(course, course_id="batch", exercises=slugs, prove=False)
    subprocess.run(["nbgrader", "generate_assignment", "lesson01"], cwd=course, check=True, capture_output=True)
    answers = {"solved": {}, "mistaken": {"sin_exp_derivative": submission("sin_exp_derivative", "sign_error")},
               "untouched": None}
    for student, replaced in answers.items():
        target = course / "submitted" / student / "lesson01"
        target.mkdir(parents=True)
        notebook = nbformat.read(course / "source" / "lesson01" / "lesson01.ipynb", as_version=4)
        if replaced is None:
            notebook = nbformat.read(course / "release" / "lesson01" / "lesson01.ipynb", as_version=4)
        nbformat.write(_answered(notebook, replaced or {}), target / "lesson01.ipynb")
    subprocess.run(["nbgrader", "autograde", "lesson01"], cwd=course, check=True, capture_output=True, timeout=900)

    def gradebook() -> dict[str, dict[str, float]]:
        with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="batch") as book:
            return {s: {g.name: g.auto_score for g in book.find_submission("lesson01", s).notebooks[0].grades}
                    for s in answers}

    by_autograde = gradebook()
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="batch") as book:  # forget them
        for student in answers:
            for grade in book.find_submission("lesson01", student).notebooks[0].grades:
                grade.auto_score = None
        book.db.commit()
    _grade(course, tmp_path / "out", "--gradebook", check=True)
    assert gradebook() == by_autograde
    assert by_autograde["solved"] == {f"test-{s}": LESSON.exercise(s).points for s in slugs}
    exported = subprocess.run(["nbgrader", "export"], cwd=course, capture_output=True, text=True)
    assert exported.returncode == 0, exported.stderr[-2000:]
    with open(course / "grades.csv", newline="") as handle:
        totals = {row["student_id"]: float(row["raw_score"]) for row in csv.DictReader(handle)}
    assert totals == pytest.approx({s: sum(v.values()) for s, v in by_autograde.items()})
    _the_term_reaches_the_gradebook(course, tmp_path)


def _the_term_reaches_the_gradebook(course: Path, tmp_path: Path) -> None:
    """A manual score set in the formgrader is copied into the ledger and kept; a late hand-in's penalty (from
    nbgrader's timestamp.txt) is the gradebook's late_submission_penalty, so `nbgrader export` gives the batch's
    final scores; an autograded notebook that scores a cell otherwise than the batch leaves that student's
    gradebook as it was, and the run says why."""
    from nbgrader.api import Gradebook

    url = f"sqlite:///{course / 'gradebook.db'}"
    with Gradebook(url, course_id="batch") as book:  # what the formgrader does when an instructor sets a score
        grade = next(g for g in book.find_submission("lesson01", "mistaken").notebooks[0].grades
                     if g.name == "test-sin_exp_derivative")
        grade.manual_score = 9.0
        book.db.commit()
    (course / "submitted" / "mistaken" / "lesson01" / "timestamp.txt").write_text("2026-12-03 10:00:00.000000 UTC\n")
    # as `nbgrader collect` writes it: a hand-in without a time would need a decision (test_unknown_times.py)
    (course / "submitted" / "solved" / "lesson01" / "timestamp.txt").write_text("2026-12-01 09:00:00.000000 UTC\n")
    term = tmp_path / "term.toml"
    term.write_text("[deadline]\ndue = 2026-12-01T23:59:00Z\npercent_per_day = 10\n")
    out = tmp_path / "out"
    _grade(course, out, "--gradebook", "--term", str(term), check=True)
    with open(out / "decisions.csv", newline="") as handle:
        ledger = list(csv.DictReader(handle))
    assert [(r["who"], r["student"], r["action"], r["exercise"], r["value"]) for r in ledger] == [
        ("nbgrader formgrader", "mistaken", "override", "sin_exp_derivative", "9")]
    with open(out / "grades.csv", newline="") as handle:
        grades = {row["student"]: row for row in csv.DictReader(handle)}
    record = json.loads((out / "students" / "mistaken.json").read_text())
    views = next(e["score"] for e in record["exercises"] if e["slug"] == "views")
    assert grades["mistaken"]["sin_exp_derivative"] == "9" and grades["mistaken"]["late_days"] == "2"
    assert float(grades["mistaken"]["score"]) == pytest.approx(round((9.0 + views) * 0.8, 2))
    _grade(course, out, "--gradebook", "--term", str(term), check=True)  # again: nothing more in the ledger
    assert len((out / "decisions.csv").read_text().splitlines()) == 2
    # the instructor changes their mind in the ledger: the gradebook's older manual score (written from the
    # ledger) does not undo it, and the gradebook follows
    subprocess.run([sys.executable, "-m", "graders", "decide", str(out / "decisions.csv"), "mistaken", "override",
                    "8.5", "--exercise", "sin_exp_derivative", "--reason", "second look", "--by", "dr.lee"],
                   check=True, capture_output=True)
    _grade(course, out, "--gradebook", "--term", str(term), check=True)
    with open(out / "decisions.csv", newline="") as handle:
        assert [r["value"] for r in csv.DictReader(handle)] == ["9", "8.5"]
    with Gradebook(url, course_id="batch") as book:
        submitted = book.find_submission("lesson01", "mistaken").notebooks[0]
        assert {g.name: g.manual_score for g in submitted.grades}["test-sin_exp_derivative"] == 8.5
    _grade(course, out, "--gradebook", "--term", str(term), check=True)  # back to 9 for what follows
    subprocess.run([sys.executable, "-m", "graders", "decide", str(out / "decisions.csv"), "mistaken", "override",
                    "9", "--exercise", "sin_exp_derivative", "--reason", "third look", "--by", "dr.lee"],
                   check=True, capture_output=True)
    _grade(course, out, "--gradebook", "--term", str(term), check=True)
    with Gradebook(url, course_id="batch") as book:
        submitted = book.find_submission("lesson01", "mistaken").notebooks[0]
        assert {g.name: g.manual_score for g in submitted.grades}["test-sin_exp_derivative"] == 9.0
        assert submitted.late_submission_penalty == pytest.approx((9.0 + views) * 0.2)
    exported = subprocess.run(["nbgrader", "export"], cwd=course, capture_output=True, text=True)
    assert exported.returncode == 0, exported.stderr[-2000:]
    with open(course / "grades.csv", newline="") as handle:
        finals = {row["student_id"]: float(row["score"]) for row in csv.DictReader(handle)}
    assert finals == pytest.approx({s: float(g["score"]) for s, g in grades.items()})

    autograded = course / "autograded" / "solved" / "lesson01" / "lesson01.ipynb"
    notebook = nbformat.read(autograded, as_version=4)
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "test-views")
    cell.outputs = [nbformat.v4.new_output("execute_result", {"text/plain": "0.5"}, execution_count=1)]
    nbformat.write(notebook, autograded)
    with Gradebook(url, course_id="batch") as book:
        before = {g.name: g.auto_score for g in book.find_submission("lesson01", "solved").notebooks[0].grades}
    run = _grade(course, out, "--gradebook", check=True)
    assert "left solved: test-views scores 0.5 in autograded/solved/lesson01/lesson01.ipynb" in run.stdout, run.stdout
    with Gradebook(url, course_id="batch") as book:
        assert {g.name: g.auto_score for g in book.find_submission("lesson01", "solved").notebooks[0].grades} == before


def test_a_notebooks_error_is_reported_at_its_line_in_the_cell(tmp_path: Path) -> None:
    notebook = lesson_notebook(LESSON, list(LESSON.exercises), notebook="lesson01.ipynb", exercise_seconds=180)
    # Cell line 1 is `%%answer views`, 2 the import, 3 blank, 4 the bad line.
    broken = _answered(notebook, {"views": "import torch\n\nthis is not python\n"})
    folder = tmp_path / "downloads"
    folder.mkdir()
    nbformat.write(broken, folder / "dana_lesson01.ipynb")
    out = tmp_path / "out"
    _grade(folder, out, check=True)
    record = json.loads((out / "students" / "dana.json").read_text())
    views = next(e for e in record["exercises"] if e["slug"] == "views")
    message = views["checks"][0]["message"]
    assert "line 4" in message and "this is not python" in message, message


SHARED_OUT_REFERENCE = """
import json, sys
from pathlib import Path
import course_config
from graders.frontends.grade.run import cluster
from graders.frontends.grade.run.main import expected_values
from graders.engine.kept_values import course_digest
folder, jobs = Path(sys.argv[1]), int(sys.argv[2])
with cluster.connected(cluster.GradingSite(jobs=jobs), course_digest()) as client:
    text = expected_values(client, course_config.LESSON_01, folder, "c" * 64)
held = sorted(name for name in sys.modules if name.startswith("reference_") or name == "torch")
print(json.dumps({"held": held, "left": sorted(p.name for p in folder.iterdir()), "same": text == next(
    folder.iterdir()).read_text()}))
"""


def test_the_reference_shared_out_among_workers_stores_what_one_worker_would(tmp_path: Path) -> None:
    runs = {}
    for jobs in (1, 2):
        # Nothing kept between the two runs (GRADERS_CACHE_DIR=off): each grades the reference on its own workers.
        done = subprocess.run([sys.executable, "-c", SHARED_OUT_REFERENCE, str(tmp_path / f"jobs{jobs}"), str(jobs)],
                              cwd=ROOT, capture_output=True, text=True, timeout=600,
                              env={**os.environ, "GRADERS_CACHE_DIR": "off"})
        assert done.returncode == 0, done.stderr[-3000:]
        runs[jobs] = json.loads(done.stdout.strip().splitlines()[-1])
    for run in runs.values():
        assert run["held"] == []  # the batch's own process holds no reference, and not even torch
        assert run["left"] == ["expected-cccccccccccccccc.json"] and run["same"]  # the store, nothing else
    one, two = (json.loads((tmp_path / f"jobs{j}" / "expected-cccccccccccccccc.json").read_text()) for j in (1, 2))
    assert any(key.startswith("drawn:") for key in two)  # the generated inputs, drawn with the reference
    assert one == two
