"""How often a single edit of a reference, handed in as a student's code, is told by name.

    python benchmarks/single_edits_named.py [SLUG ...]

Every single edit of each reference (graders/engine/mutation.py) that answers some check otherwise than the
reference does (the edits graders/lesson01/mutants.json keeps) is graded as the only answer of a student, in this
process, keeping no expected values, and counted as

- full marks: no check fails (the checks let the edit through);
- its family: some failed check names the edit's own family ("one sign flipped", ...);
- the catalogue: a failed check names a catalogued mistake (the catalogue names a slip before the edits are tried);
- another family: a failed check names another family's name (a misleading name: there should be none);
- unnamed: the checks fail and nothing is named.

Prints one line per edit and the shares. The edits are the references' own, so this measures the diagnosis from
principles (the edits run on every input of the check) apart from the catalogue's own examples; the corpora
written away from the grader (benchmarks/named_share.py) measure it on code nobody here has seen.
"""

from __future__ import annotations

import argparse
import collections

import course_config
from graders.engine import mutation, shipped_mutants, single_edits

KINDS = ("its family", "the catalogue", "another family", "unnamed", "full marks")


def kind_of(family: str, checks: dict[str, dict]) -> tuple[str, str]:
    """How a graded edit was told, and the first name a failed check gave."""
    names = {name: other for other, (name, _, _) in mutation.FAMILIES.items()}
    failed = [check for check in checks.values() if not check["passed"]]
    first = next((check["mistake"] for check in failed if check.get("mistake")), "") or ""
    if not failed:
        return "full marks", first
    told = {check.get("mistake") for check in failed}
    if any(names.get(name or "") == family for name in told):
        return "its family", first
    if any(name in names for name in told):
        return "another family", first
    return ("the catalogue", first) if first else ("unnamed", first)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("slugs", nargs="*", help="the exercises to measure (default: every one in the data file)")
    options = parser.parse_args(argv)
    lesson = course_config.LESSON_01.folder
    data = single_edits._shipped(lesson).get("exercises", {})
    if not data:
        raise SystemExit("no data file of today's references: run `python -m graders.engine.shipped_mutants`")
    tally: collections.Counter[str] = collections.Counter()
    for slug in options.slugs or sorted(data):
        edits = {m.index: m for m in mutation.mutants(single_edits.reference_path(lesson, slug).read_text("utf-8"))}
        for kept in data[slug]["kept"]:
            kind, first = kind_of(kept["family"], shipped_mutants.graded(lesson, slug, edits[kept["index"]].source))
            tally[kind] += 1
            print(f"{slug:<20} {kept['index']:>3} {kind:<15} {first[:40]:<40} {kept['edit'][:70]}", flush=True)
    lost = sum(tally.values()) - tally["full marks"]
    named = tally["its family"] + tally["the catalogue"]
    print("\n" + ", ".join(f"{kind}: {tally[kind]}" for kind in KINDS))
    if lost:
        print(f"named: {named} of the {lost} edits that lose points ({100 * named / lost:.1f}%); "
              f"misleading (another family's name): {tally['another family']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
