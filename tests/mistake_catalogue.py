"""The catalogue of mistakes: each wrong submission is stored as a change to the current reference.

Why changes and not copies: a full copy of the reference with one mistake in it drifts from the reference
as the reference is edited (docstrings, fixes, refactors), and then no longer shows what is wrong in it. A
change keeps only the lines that make the mistake, and applies them to today's reference; if the reference
is edited under a change, the change fails loudly, naming its file and block, instead of applying to the
wrong place.

A change lives in tests/lesson01/<slug>/mistakes/<name>.change:

    # mistake: gradients never zeroed                (the header: every line before the first @@,
    # fails: lesson_run_at_lr_0_1, lr_0_01_is_slow     put verbatim at the top of the submission)

    @@ replace
    <lines of the current reference, exactly as written there; they must occur exactly once in it>
    @@ with
    <the lines the student wrote instead (none, to delete)>
    @@ end

    @@ append
    <lines the student added at the end of the module>
    @@ end

Blocks may repeat; the lines they replace must not overlap. Nothing but blank lines may stand between them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "tests" / "lesson01"
REFERENCE = ROOT / "reference" / "lesson01"
SUFFIX = ".change"


class ChangeError(ValueError):
    """A change file that cannot be read, or that does not apply to the current reference."""


@dataclass(frozen=True)
class Block:
    """One edit: `old` lines of the reference (none for an append) become `new` lines."""

    kind: str  # "replace" or "append"
    old: tuple[str, ...]
    new: tuple[str, ...]
    line: int  # where the block starts in its change file, for error messages


@dataclass(frozen=True)
class Change:
    """One catalogued submission: its header and its edits to the reference of its exercise."""

    path: Path
    header: str
    blocks: tuple[Block, ...]

    @property
    def slug(self) -> str:
        return self.path.parent.parent.name

    @property
    def name(self) -> str:
        return self.path.stem

    def text(self, reference: str | None = None) -> str:
        """The submission: the header, then the reference (today's, unless given) with the edits made."""
        if reference is None:
            reference = (REFERENCE / f"{self.slug}.py").read_text()
        return self.header + apply(self, reference)


def read(path: Path) -> Change:
    """Parse a change file; a ChangeError names the file and line of anything malformed."""
    lines = path.read_text().removesuffix("\n").split("\n")
    first = next((i for i, line in enumerate(lines) if line.startswith("@@")), len(lines))
    header = "".join(line + "\n" for line in lines[:first])
    blocks: list[Block] = []
    i = first
    while i < len(lines):
        start, marker = i + 1, lines[i]
        if not marker.strip():
            i += 1
            continue
        if marker not in ("@@ replace", "@@ append"):
            raise ChangeError(f"{path} line {start}: expected '@@ replace' or '@@ append', found {marker!r}")
        old, i = _section(path, lines, i + 1, "@@ with" if marker == "@@ replace" else "@@ end")
        new: list[str] = []
        if marker == "@@ replace":
            if not old:
                raise ChangeError(f"{path} line {start}: '@@ replace' with no lines to replace")
            new, i = _section(path, lines, i, "@@ end")
            blocks.append(Block("replace", tuple(old), tuple(new), start))
        else:
            blocks.append(Block("append", (), tuple(old), start))
    if not blocks:
        raise ChangeError(f"{path}: no '@@ replace' or '@@ append' block: the change changes nothing")
    return Change(path, header, tuple(blocks))


def _section(path: Path, lines: list[str], i: int, closing: str) -> tuple[list[str], int]:
    """The lines from i up to the closing marker, and the index after it."""
    found: list[str] = []
    while i < len(lines) and lines[i] != closing:
        if lines[i].startswith("@@"):
            raise ChangeError(f"{path} line {i + 1}: expected {closing!r}, found {lines[i]!r}")
        found.append(lines[i])
        i += 1
    if i == len(lines):
        raise ChangeError(f"{path}: the file ends before {closing!r}")
    return found, i + 1


def apply(change: Change, reference: str) -> str:
    """The reference with the change's edits made. Each replaced text must occur exactly once in the
    reference, and no two may overlap; otherwise a ChangeError names the file and the block."""
    lines = reference.removesuffix("\n").split("\n")
    spans: list[tuple[int, int, Block]] = []
    for block in change.blocks:
        if block.kind != "replace":
            continue
        size = len(block.old)
        places = [i for i in range(len(lines) - size + 1) if tuple(lines[i:i + size]) == block.old]
        if len(places) != 1:
            found = "does not occur" if not places else f"occurs {len(places)} times (lines {places[0] + 1}, ...)"
            raise ChangeError(f"{change.path} line {block.line}: the text this block replaces {found} in the "
                              f"reference of {change.slug}; its first line: {block.old[0]!r}")
        spans.append((places[0], places[0] + size, block))
    spans.sort(key=lambda span: span[0])
    for (_, end, block), (start, _, later) in zip(spans, spans[1:]):
        if start < end:
            raise ChangeError(f"{change.path} line {later.line}: this block replaces lines that the block at "
                              f"line {block.line} replaces too")
    for start, end, block in reversed(spans):
        lines[start:end] = block.new
    for block in change.blocks:
        if block.kind == "append":
            lines.extend(block.new)
    return "".join(line + "\n" for line in lines)


def changes(slug: str | None = None) -> list[Change]:
    """Every change of the catalogue (of one exercise, if given), sorted by exercise and name."""
    pattern = f"{slug or '*'}/mistakes/*{SUFFIX}"
    return [read(path) for path in sorted(CATALOGUE.glob(pattern))]


def submission(slug: str, name: str) -> str:
    """The text of the catalogued submission tests/lesson01/<slug>/mistakes/<name>.change."""
    return read(CATALOGUE / slug / "mistakes" / f"{name}{SUFFIX}").text()
