"""How often the grader names the mistake in wrong solutions it has never seen.

    python benchmarks/named_share.py CORPUS [--out DIR] [-j N]

CORPUS holds `<slug>/<name>.py`: each file a whole module handed in for exercise `<slug>`,
wrong in one way, its first line `# intended: <the mistake, in words>`, or right in a way of its
own, its first line `# intended: correct (<how it differs>)`. Each file is graded as the only
answer of a student of its own, through the batch grader (`python -m graders grade`), and then
counted as

- lost points: its exercise scored less than full marks (a wrong answer that keeps full marks
  is a hole in the checks; a correct one that loses any is the worst failure of all);
- named: some failed check of its exercise gave a mistake by name.

Prints one line per file (score, the names given, what was intended), the two shares over the
wrong solutions (issue 12's goal: at least 9 in 10 named) and how many correct ones kept full marks. The corpus must not have been seen
by whoever wrote the diagnosis, or the share says little: keep it outside tests/.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import course_config
from graders.frontends.grade import store

GOAL = 0.9


def _students(corpus: Path, folder: Path) -> dict[str, tuple[str, Path]]:
    """One student folder per corpus file: `<slug>__<name>/lesson01/<slug>.py`."""
    slugs = {e.slug for e in course_config.LESSON_01.exercises}
    students = {}
    for path in sorted(corpus.glob("*/*.py")):
        slug = path.parent.name
        if slug not in slugs:
            sys.exit(f"{path}: {slug!r} is not an exercise of lesson 1 ({', '.join(sorted(slugs))})")
        student = f"{slug}__{path.stem}"
        (folder / student / "lesson01").mkdir(parents=True)
        shutil.copyfile(path, folder / student / "lesson01" / f"{slug}.py")
        students[student] = (slug, path)
    if not students:
        sys.exit(f"{corpus} holds no <slug>/<name>.py file")
    return students


def _intended(path: Path) -> str:
    found = re.match(r"#\s*intended:\s*(.*)", path.read_text(encoding="utf-8", errors="replace"))
    return found.group(1).strip() if found else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", type=Path, help="a folder of <slug>/<name>.py wrong solutions")
    parser.add_argument("--out", type=Path, help="keep the batch's outputs here (default: a scratch folder)")
    parser.add_argument("-j", "--jobs", type=int, help="grading processes (default: the number of cores)")
    options = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="named-share-"))
    try:
        students = _students(options.corpus, scratch / "class")
        out = options.out or scratch / "out"
        command = [sys.executable, "-m", "graders", "grade", str(scratch / "class"), "--out", str(out)]
        done = subprocess.run(command + (["-j", str(options.jobs)] if options.jobs else []),
                              cwd=course_config.ROOT, capture_output=True, text=True)
        if done.returncode not in (0, 1):
            sys.exit(f"the batch grader failed:\n{done.stderr[-3000:]}")
        lost = named = right = 0
        correct = {student for student, (_, path) in students.items() if _intended(path).startswith("correct")}
        for student, (slug, path) in students.items():
            record = store.stored(out, student)
            exercise = record.exercise(slug) if record else None
            if exercise is None:
                print(f"NOT GRADED  {slug}/{path.name}: {(record.error if record else '') or 'no result'}")
                continue
            names = sorted({c.mistake for c in exercise.checks if not c.passed and c.mistake})
            short = exercise.score < exercise.max_score
            if student in correct:
                right += not short
                verdict = "LOST POINTS" if short else "FULL MARKS"
            else:
                lost += short
                named += short and bool(names)
                verdict = "NAMED" if short and names else "UNNAMED" if short else "FULL MARKS"
            failed = "" if not short else "  failed: " + ", ".join(c["id"] for c in exercise["checks"] if not c["passed"])
            print(f"{verdict:<11} {slug}/{path.name}: {exercise['score']:g}/{exercise['max_score']:g}"
                  f"  names: {'; '.join(names) or '-'}  intended: {_intended(path)}{failed}")
        wrong = len(students) - len(correct)
        print(f"\n{wrong} wrong solutions: {lost} lost points ({lost / max(wrong, 1):.0%}); "
              f"{named} of those named ({named / max(lost, 1):.0%}; goal {GOAL:.0%})")
        if correct:
            print(f"{len(correct)} correct solutions: {right} kept full marks (goal: all)")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
