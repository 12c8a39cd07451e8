"""A notebook's answers, read with nbformat (no kernel): each exercise's module source.

An answer cell is found by its nbgrader id (`answer-<slug>`) or, where a student's copy lost
its metadata, by its first line (`%%answer <slug>`), as the notebook's test cells find it.
What a hand-in got wrong is said per student and never stops the batch: an answer cell copied (the
last copy is graded: the one the student wrote last, what a kernel running the notebook top to bottom
defines last, and the one `nbgrader check` keeps for autograde), an exercise with no answer cell (it
scores 0, as a missing file does), a file that is not a notebook at all.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from types import ModuleType

from graders.frontends.nbgrader.runtime import MAGIC as _MAGIC_NAME, strip_magic

MAGIC = f"%%{_MAGIC_NAME}"


@dataclass
class Answers:
    """The module source of each exercise found, and what was wrong with the hand-in."""

    sources: dict[str, str] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def load_nbformat() -> ModuleType:
    """nbformat, imported without the 1.1 s that jsonschema's optional IRI checker costs.

    nbformat validates notebooks with jsonschema, which compiles a Lark grammar on import when
    rfc3987_syntax is installed (jupyter's packages pull it in). No notebook schema uses the
    "iri" format it checks, so the batch grader marks that package absent, as jsonschema allows."""
    if "jsonschema" not in sys.modules:
        sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    import nbformat

    return nbformat


def notebook_answers(text: str, name: str, slugs: list[str]) -> Answers:
    """The answers to these exercises in a notebook's text (read by handed_in.py: never through a
    link, size-capped; nbformat is never given a path to open itself). `name` is for messages."""
    nbformat = load_nbformat()

    found = Answers()
    try:
        notebook = nbformat.reads(text, as_version=4)
    except Exception as error:  # noqa: BLE001 - any unreadable file is one student's problem
        found.problems.append(f"{name} is not a notebook nbformat can read ({type(error).__name__}); "
                              f"every exercise scores 0")
        return found
    listed = notebook.get("cells", [])  # a crafted notebook's cells may be anything
    # Each code cell with its place in the notebook, counting every cell from 1 (as `nbgrader check` says it).
    cells = [(number, c) for number, c in enumerate(listed, start=1) if isinstance(c, dict)
             and c.get("cell_type") == "code"] if isinstance(listed, list) else []
    for slug in slugs:
        by_id = [(n, c) for n, c in cells if _grade_id(c) == f"answer-{slug}"]
        by_line = [(n, c) for n, c in cells if _first_line(c) == [MAGIC, slug]]
        chosen = by_id or by_line
        if not chosen:
            found.problems.append(f"{slug}: no answer cell (nbgrader id answer-{slug}, or a first line "
                                  f"'{MAGIC} {slug}'); it scores 0")
            continue
        if len(chosen) > 1:
            found.problems.append(copies_graded(slug, [n for n, _ in chosen]))
        elif not by_id:
            found.problems.append(f"{slug}: the answer cell lost its nbgrader metadata; found by its first line")
        found.sources[slug] = strip_magic(_source(chosen[-1][1]))
    return found


def copies_graded(slug: str, numbers: list[int]) -> str:
    """What a student is told when their notebook holds several answer cells for one exercise, at these
    places (counting every cell from 1): the last was graded."""
    others = len(numbers) - 1
    ignored = (f"the first (cell {numbers[0]}) was ignored" if others == 1 else
               f"the other {others} (cells {', '.join(map(str, numbers[:-1]))}) were ignored")
    return f"{len(numbers)} answer cells for {slug}: graded the last one (cell {numbers[-1]}); {ignored}"


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(map(str, source)) if isinstance(source, list) else str(source)


def _grade_id(cell: dict) -> str:
    metadata = cell.get("metadata", {})
    nbgrader = metadata.get("nbgrader", {}) if isinstance(metadata, dict) else {}
    return str(nbgrader.get("grade_id", "")) if isinstance(nbgrader, dict) else ""


def _first_line(cell: dict) -> list[str]:
    return _source(cell).lstrip().split("\n", 1)[0].split()
