"""The reference's single edits a course version may name, generated once: `python -m graders.engine.shipped_mutants`.

It grades the reference against the lesson's checks (live, keeping nothing), noting each check's inputs (a call
of a reference function and the same call of the student's: engine/single_edits.py); runs every mutant of
engine/mutation.py on them; and writes graders/<lesson>/mutants.json with, per exercise, the mutants kept: those
that answer some check's input other than the reference does (the others are equivalent to it there, and can
never explain a wrong answer), each with its family, its edit in words, the checks where it differs
(`checks`), and the checks where, submitted as a student's code, it would be told by name (`named`: on the
inputs up to its first wrong answer, its family is the only one that gives its answers). tests/engine/
test_single_edits.py grades each such mutant and fails when the file is out of date.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import tempfile
from pathlib import Path
import sys
import time
from types import ModuleType
from typing import Any

import course_config
from graders.engine import mutation, single_edits

RUN_SECONDS = 2.0  # a mutant whose call on a check's input takes longer (CPU) is left out: a failure must stay quick
# A check whose live mutants take longer than this share of the explanation's budget, all on its inputs, ships no
# explanation: what is named must not depend on how close to the budget a run comes.
BUDGET_SHARE = 0.5
_WRONG = "wrong"


Call = tuple[str, dict[str, Any]]  # a reference function's name and the arguments a check gave the student's


def _inputs(lesson: str, slugs: list[str]) -> dict[str, dict[str, list[single_edits.Input]]]:
    """Per exercise, per check id, the check's inputs, from grading the reference in this process."""
    import pytest

    single_edits.collecting()
    stubs = [str(course_config.ROOT / "exercises" / lesson / f"{slug}.py") for slug in slugs]
    code = pytest.main([*stubs, "--submission", str(course_config.ROOT / "reference"), "--no-expected-cache",
                        "-q", "-p", "no:cacheprovider"])
    if code != 0:
        raise SystemExit(f"the reference does not pass its checks (pytest exit code {code}): nothing generated")
    found: dict[str, dict[str, list[single_edits.Input]]] = {slug: {} for slug in slugs}
    for node_id, inputs in single_edits.collected().items():
        slug = node_id.split("::")[0].rsplit("/", 1)[-1].removesuffix(".py")
        mine = [noted for noted in inputs if noted.slug == slug]
        if slug in found and mine:
            found[slug][node_id.rsplit("::", 1)[-1].removeprefix("test_")] = mine
    return found


def _answers(module: ModuleType, inputs: list[Call]) -> tuple[list[Any], float]:
    """A module's answer to each input (`_WRONG` where it raised or ran out of time), and its longest call."""
    answers, longest = [], 0.0
    for function, bound in inputs:
        started = time.process_time()
        answer = single_edits.run_mutant(module, function, bound, seconds=RUN_SECONDS)
        longest = max(longest, time.process_time() - started)
        answers.append(_WRONG if answer is single_edits._UNSET else answer)
    return answers, longest


def _first_wrong(answers: list[Any], right: list[Any]) -> int | None:
    """The first input a mutant answers otherwise than the reference (raising counts), or None."""
    return next((i for i, (a, r) in enumerate(zip(answers, right))
                 if a is _WRONG or not single_edits.reproduces(a, r)), None)


def exercise(lesson: str, slug: str, noted: dict[str, list[single_edits.Input]]) -> dict:
    """The data file's entry of one exercise."""
    path = single_edits.reference_path(lesson, slug)
    text = path.read_text(encoding="utf-8")
    reference = single_edits.load(mutation.Mutant(-1, "", "", "", text), f"reference_{slug}")
    checks: dict[str, list[Call]] = {}
    for check, inputs in noted.items():
        calls = [(n.function, bound) for n in inputs for bound in [single_edits.arguments(reference, n)]
                 if bound is not None]
        if calls:
            checks[check] = calls
    right = {check: _answers(reference, inputs)[0] for check, inputs in checks.items()}
    every = mutation.mutants(text)
    answers: dict[int, dict[str, list[Any]]] = {}
    kept, slow_ones, unstable = [], [], []
    cost: dict[str, float] = {}
    for mutant in every:
        module = single_edits.load(mutant, f"mutant_{slug}_{mutant.index}")
        mine, live, slow, spent = {}, [], False, {}
        for check, inputs in checks.items():
            started = time.process_time()
            mine[check], longest = _answers(module, inputs)
            spent[check] = time.process_time() - started
            slow = slow or longest > RUN_SECONDS / 2
            wrong = _first_wrong(mine[check], right[check])
            if wrong is not None and mine[check][wrong] is not _WRONG:
                live.append(check)
        if slow:
            slow_ones.append(mutant.index)
            continue
        # An edit whose answers change from one run to the next (a loop one pass short over torch.empty_like leaves
        # memory unwritten) fits a student's answer by chance: it is never shipped.
        if any(not all(a is b or single_edits.same(a, b) for a, b in zip(mine[check], _answers(module, inputs)[0]))
               for check, inputs in checks.items() if check in live):
            unstable.append(mutant.index)
            continue
        for check in checks:  # a failure tries every mutant but the slow ones
            cost[check] = cost.get(check, 0.0) + spent[check]
        if live:
            answers[mutant.index] = mine
            kept.append({"index": mutant.index, "function": mutant.function, "family": mutant.family,
                         "edit": mutant.edit, "checks": live})
    families = {m["index"]: m["family"] for m in kept}
    for entry in kept:
        named = []
        for check in entry["checks"]:
            mine = answers[entry["index"]][check]
            if any(answer is _WRONG for answer in mine):
                continue  # as a student's code it raises on some input: no answer there to explain
            # As a student's code, it fails the check at its first wrong answer and is asked the check's other inputs
            # (single_edits.explain): the mutants that give its answers on all of them are those the grader finds,
            # and their families must be its own alone.
            alike = {families[other] for other, theirs in answers.items()
                     if check in theirs and all(theirs[check][i] is not _WRONG
                                                and single_edits.reproduces(answer, theirs[check][i])
                                                for i, answer in enumerate(mine))}
            if alike == {entry["family"]} and cost[check] <= BUDGET_SHARE * single_edits.SECONDS:
                named.append(check)
        entry["named"] = named
    return {"reference": single_edits.source_digest(text), "checks": single_edits.checks_digest(lesson, slug),
            "generated": len(every), "kept": kept, "slow": slow_ones, "unstable": unstable,
            "inputs": {check: len(calls) for check, calls in sorted(checks.items())},
            "cpu_seconds": {check: round(spent, 3) for check, spent in sorted(cost.items())}}


def write_inputs(lesson: str, noted: dict[str, dict[str, list[single_edits.Input]]]) -> None:
    """graders/<lesson>/mutant_inputs.bin: per exercise, each check's inputs (function, args, kwargs), which the
    grader asks a student's worker after a check stopped at a wrong answer. Exercises not regenerated keep theirs."""
    from graders.sandbox import WireError, pack, unpack

    path = single_edits.inputs_path(lesson)
    try:
        data = unpack(path.read_bytes())
    except (OSError, WireError):
        data = {}
    if not isinstance(data, dict) or data.get("generator") != single_edits.generator_digest():
        data = {"generator": single_edits.generator_digest(), "exercises": {}}
    for slug, checks in noted.items():
        reference = single_edits.reference_path(lesson, slug).read_text(encoding="utf-8")
        data["exercises"][slug] = {"reference": single_edits.source_digest(reference),
                                   "checks": {check: [(n.function, n.args, n.kwargs) for n in calls]
                                              for check, calls in sorted(checks.items())}}
    path.write_bytes(pack(data))
    single_edits.forget()


def graded(lesson: str, slug: str, source: str) -> dict[str, dict]:
    """Per check id, the JSON result's check of grading `source` as a student's answer to `slug` (in this process,
    keeping no expected values)."""
    import pytest

    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / lesson).mkdir()
        (Path(folder) / lesson / f"{slug}.py").write_text(source, encoding="utf-8")
        out = Path(folder) / "result.json"
        stub = course_config.ROOT / "exercises" / lesson / f"{slug}.py"
        with contextlib.redirect_stdout(io.StringIO()):
            pytest.main([str(stub), "--submission", folder, "--json", str(out), "--no-expected-cache", "-q",
                         "-p", "no:cacheprovider"])
        result = json.loads(out.read_text()) if out.is_file() else {"exercises": []}
    return {c["id"]: c for e in result["exercises"] if e["slug"] == slug for c in e["checks"]}


def verify(lesson: str, slug: str, entry: dict) -> list[str]:
    """Grade each kept mutant that some check should name as a student's code: `named` becomes the checks whose
    message names its family (a catalogued mistake may name it first); what names another family is returned."""
    mutants = {m.index: m for m in mutation.mutants(single_edits.reference_path(lesson, slug).read_text("utf-8"))}
    names = {name: family for family, (name, _, _) in mutation.FAMILIES.items()}
    problems = []
    for kept in entry["kept"]:
        if not kept["named"]:
            continue
        checks = graded(lesson, slug, mutants[kept["index"]].source)
        kept["named"] = sorted(c for c, result in checks.items() if names.get(result.get("mistake") or "") == kept["family"])
        problems += [f"{slug} mutant {kept['index']} ({kept['edit']}): {c} named {result['mistake']!r}"
                     for c, result in checks.items()
                     if result.get("mistake") in names and names[result["mistake"]] != kept["family"]]
    return problems


def is_quiz(exercise: course_config.Exercise) -> bool:
    """An exercise whose points are all hidden checks' (quick_check): its reference is its answer key, and an edit of
    it told in words would tell answers."""
    return not any(check.points for check in exercise.checks if not check.hidden)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*", help="the exercises to generate (default: every one of the lesson)")
    parser.add_argument("--lesson", default="lesson01")
    options = parser.parse_args(argv)
    lesson = next(ls for ls in course_config.LESSONS if ls.folder == options.lesson)
    slugs = options.slugs or [e.slug for e in lesson.exercises]
    path = single_edits.data_path(options.lesson)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if data.get("generator") != single_edits.generator_digest():
        data = {"generator": single_edits.generator_digest(), "exercises": {}}
    skipped = [e.slug for e in lesson.exercises if e.slug in slugs and is_quiz(e)]
    for slug in skipped:
        data["exercises"].pop(slug, None)
        print(f"{slug}: a quiz, left out", file=sys.stderr)
    slugs = [slug for slug in slugs if slug not in skipped]
    inputs = _inputs(options.lesson, slugs) if slugs else {}
    single_edits.NOTES.collecting = False
    write_inputs(options.lesson, inputs)
    problems = []
    for slug in slugs:
        entry = exercise(options.lesson, slug, inputs[slug])
        data["exercises"][slug] = entry
        path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        single_edits.forget()  # the grading below reads the file just written
        problems += verify(options.lesson, slug, entry)
        data["exercises"][slug] = entry
        named = sum(1 for m in entry["kept"] if m["named"])
        print(f"{slug}: {entry['generated']} mutants, {len(entry['kept'])} kept, {named} named by some check",
              file=sys.stderr)
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for problem in problems:
        print(f"named another family: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
