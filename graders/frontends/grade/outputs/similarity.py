"""Pairs of answers to one exercise that look alike, as MOSS lists them: for a person to review, never a verdict.

Each answer is fingerprinted by winnowing (winnowing.py: every k-gram, offline) and each pair worth it
is compared; a pair is listed when the larger of its two shares (how much of an answer's own
code the other holds too) reaches THRESHOLD. Three things come first, because these exercises are
short functions that the docstrings all but dictate:

- Normalizing. As copydetect's filter does, names the answer makes up become V, strings S,
  and comments, docstrings and spacing go, so that renaming and recommenting change nothing.
  Unlike it, API names stay (torch.zeros is not torch.tensor(0.0), .item() is not .tolist()), and
  so do block and statement ends: honest answers differ mostly in the calls they make.
- What every student was given never counts: the stub's statements and the code its docstrings
  give ("Follow this recipe: ...", `y = x ** 2`) are left out of each answer, then every k-gram of
  the stub is dropped (copydetect calls it boilerplate). An untouched stub has nothing left to compare.
- Code that many answers share (more than COMMON_FLOOR of them and COMMON_SHARE of the class) is
  dropped too, as MOSS drops passages found in many programs: it is the obvious way to write what
  was asked. This keeps every list of the inverted index of k-grams short, and only pairs that share
  enough k-grams there are compared in full (6 pairs of 1.7 million for 500 students x 14 exercises,
  benchmarks/similarity_speed.py).

How the figures were chosen. tests/frontends/test_similarity.py holds 5 students' independent answers
to 4 exercises (53 pairs that are not copies), 3 copies with new names and comments and reordered
lines, and 5 copies edited further (an expression split or commuted, a loop or return rewritten):

    k (characters)          8     10     12     15     18     20     25
    largest honest share  0.86   0.86   0.76   0.77   0.77   0.77   0.77
    smallest copy         0.88   0.93   0.97   1.00   0.97   0.97   0.97
    smallest edited copy  0.92   0.90   0.88   0.89   0.88   0.88   0.78

copydetect as it comes (its filter, its boilerplate) on the same answers, at k = 10 / 15 / 25: largest
honest 0.88 / 0.89 / 0.79, smallest edited copy 0.93 / 0.85 / 0.76, a gap of 0.06 at best.

- NOISE_THRESHOLD (k) = 15: honest answers stop matching by chance from 12 on, and copies start to
  lose matches at reordered short lines from 18 on.
- A winnowing window of 1, so the guarantee threshold is the noise threshold and every k-gram is a
  fingerprint (winnowing.py). Answers are short enough to afford it, and a wider window picks k-grams by
  the value of Python's string hash, which changes with every process: with a window of 4 (copydetect's
  winnowing, measured before it was replaced), the same class gave one copy 1.0 in one run and 0.965 in the next.
- THRESHOLD = 0.8: above the largest honest share (0.77, a class too small for common code to be
  dropped), below every edited copy (0.88 there; 0.82 for the same copy in the benchmark's class of
  500, whose common code is dropped from both answers while the edits stay).
- MIN_OVERLAP = 80 normalized characters in common, about three lines: an answer with one function
  written shares all of it with honest classmates (up to 0.98, on 58 characters, over every partial
  answer of that class); copies share 197 to 367.

Bounded work. A hand-in may hold 2 MiB per file, and comparing 14 such files with a class of 100 took
68 CPU-seconds (benchmarks/similarity_budget.py; 1.8 with the cap, 4.2 for 14 answers just under it).
An answer larger than ANSWER_BYTES (64 KiB: the largest stub with its docstrings is 8.4 KiB) is not
compared at all, and `out_of_time`, asked before each answer is read and each pair compared, stops the
rest: what was left out is named in the result, never silently dropped.
"""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import re
import tokenize
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Callable

from graders.frontends.grade.outputs.winnowing import Fingerprint, kgram_hashes, overlap
from graders.frontends.grade.spreadsheet import guarded_writer, text_cell

NOISE_THRESHOLD = 15  # k: the shortest run of normalized code, in characters, that counts as a match
THRESHOLD = 0.8
MIN_OVERLAP = 80  # normalized characters both answers must hold in common, whatever the share
COMMON_FLOOR = 10  # code in more answers than this, and than COMMON_SHARE of them, is common
COMMON_SHARE = 0.05
ANSWER_BYTES = 64 * 2**10  # a larger answer is not compared: its cost grows with its size, its use does not
TOO_LARGE = "{exercise}: {name}'s answer was not compared: {size}, over the {cap} an answer may hold to be compared"
OUT_OF_TIME = "{exercise}: {left} of {all} {what} not compared: the time for comparing ran out"

# Names that mean the same in every answer: a different one is a different API, never a rename.
_KEPT_NAMES = frozenset(dir(builtins)) | frozenset(keyword.kwlist)  # not soft keywords: "_" is a made-up name
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # Python 3.12 splits f-strings into tokens
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)
_LINE_STARTS = (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.COMMENT)
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_NO_LINE = 0


@dataclass(frozen=True)
class Pair:
    """Two answers to one exercise whose code overlaps."""

    exercise: str  # the exercise's slug
    first: str  # a student id, or "<term>/<student>" for an archived answer; first < second
    second: str
    similarity: float  # 0..1: the larger of the two shares of an answer's own code that the other holds too
    first_blocks: list[tuple[int, int]]  # the matching lines of first's answer, 1-based, inclusive
    second_blocks: list[tuple[int, int]]


@dataclass
class _Answer:
    """One answer: the fingerprint of its normalized code, and the source line of each character."""

    name: str
    fingerprint: Fingerprint
    lines: list[int]


@dataclass
class Comparison:
    """What comparing a class found, and what it left out (each a sentence for the instructor)."""

    pairs: list[Pair] = field(default_factory=list)
    not_compared: list[str] = field(default_factory=list)


def _never() -> bool:
    return False


def similar_pairs(answers: dict[str, dict[str, str]], stubs: dict[str, str], *, threshold: float = THRESHOLD,
                  archive: dict[str, dict[str, str]] | None = None) -> list[Pair]:
    """The pairs of answers to one exercise at or above `threshold`, most similar first (`compare`'s pairs)."""
    return compare(answers, stubs, threshold=threshold, archive=archive).pairs


def compare(answers: dict[str, dict[str, str]], stubs: dict[str, str], *, threshold: float = THRESHOLD,
            archive: dict[str, dict[str, str]] | None = None, largest: int = ANSWER_BYTES,
            out_of_time: Callable[[], bool] = _never) -> Comparison:
    """The pairs of answers to one exercise at or above `threshold`, most similar first, and what was not compared.

    `answers` is student -> exercise slug -> source, `stubs` slug -> the handed-out stub, `archive`
    earlier terms' answers ("<term>/<student>" -> slug -> source), compared with this term's only. An answer
    over `largest` bytes is left out; once `out_of_time()` says so, everything not yet compared is.
    """
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"similar_pairs: threshold must be between 0 and 1, got {threshold!r}")
    archive = archive or {}
    twice = sorted(set(answers) & set(archive))
    if twice:
        raise ValueError(f"similar_pairs: {twice} named both in answers and in archive; "
                         f"archived answers are named '<term>/<student>'")
    found = Comparison()
    slugs = sorted({slug for answered in answers.values() for slug in answered})
    missing = [slug for slug in slugs if slug not in stubs]
    if missing:
        raise ValueError(f"similar_pairs: no stub for exercise {missing[0]!r} (stubs has {sorted(stubs)}); "
                         f"without it the code every student was given would count as shared")
    for slug in slugs:
        current = {student: answered[slug] for student, answered in answers.items() if slug in answered}
        earlier = {name: answered[slug] for name, answered in archive.items() if slug in answered}
        everyone = sorted({**current, **earlier}.items())
        for name, source in everyone:
            size = len(source.encode("utf-8", "surrogateescape"))
            if size > largest:
                found.not_compared.append(TOO_LARGE.format(exercise=slug, name=name, size=_size(size),
                                                           cap=_size(largest)))
                current.pop(name, None)
                earlier.pop(name, None)
        _exercise_pairs(slug, current, earlier, stubs[slug], threshold, out_of_time, found)
    found.pairs.sort(key=lambda pair: (-pair.similarity, pair.exercise, pair.first, pair.second))
    return found


def _size(size: int) -> str:
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{size / 2**10:.0f} KiB"


def _exercise_pairs(slug: str, current: dict[str, str], earlier: dict[str, str], stub: str, threshold: float,
                    out_of_time: Callable[[], bool], found: Comparison) -> None:
    everyone = sorted({**current, **earlier}.items())
    if len(everyone) < 2:
        return
    if out_of_time():
        found.not_compared.append(OUT_OF_TIME.format(exercise=slug, left=len(everyone), all=len(everyone),
                                                     what="answers were"))
        return
    given = _given(stub)
    boilerplate = _boilerplate(stub, given)
    written = []
    for number, (name, source) in enumerate(everyone):
        if out_of_time():
            found.not_compared.append(OUT_OF_TIME.format(exercise=slug, left=len(everyone) - number,
                                                         all=len(everyone), what="answers were"))
            return
        written.append(_fingerprinted(name, source, given, boilerplate))
    written = [answer for answer in written if answer.fingerprint.hashes]  # untouched stubs have nothing left
    held_by = Counter(h for answer in written for h in answer.fingerprint.hashes)
    most = max(COMMON_FLOOR, COMMON_SHARE * len(written))
    common = {h for h, count in held_by.items() if count > most}
    for answer in written:
        answer.fingerprint.drop(common)
    candidates = _candidates([answer for answer in written if answer.fingerprint.hashes], set(current))
    for number, (first, second) in enumerate(candidates):
        if out_of_time():
            left = len(candidates) - number
            found.not_compared.append(OUT_OF_TIME.format(exercise=slug, left=left, all=len(candidates),
                                                         what="pairs alike enough to look at were"))
            return
        shared = overlap(first.fingerprint, second.fingerprint)  # a fingerprint's size is counted once, when asked
        similarity = max(shared.shares)
        if similarity >= threshold and min(_length(shared.first), _length(shared.second)) >= MIN_OVERLAP:
            found.pairs.append(Pair(slug, first.name, second.name, similarity, _blocks(first.lines, shared.first),
                                    _blocks(second.lines, shared.second)))


def _candidates(answers: list[_Answer], current: set[str]) -> list[tuple[_Answer, _Answer]]:
    """The pairs worth comparing in full (answers in name order, so first < second): at least one of this term,
    sharing fingerprints at enough places to reach MIN_OVERLAP (a match of n places covers at most k·n characters)."""
    index: dict[int, list[tuple[int, int]]] = defaultdict(list)  # k-gram -> (answer, places it is at)
    for number, answer in enumerate(answers):
        for h, places in answer.fingerprint.places.items():
            index[h].append((number, len(places)))
    shared: Counter[tuple[int, int]] = Counter()
    for holders in index.values():  # common k-grams are gone: each list holds at most `most` answers
        for i, (first, first_places) in enumerate(holders):
            for second, second_places in holders[i + 1:]:
                shared[first, second] += max(first_places, second_places)
    return [(answers[first], answers[second]) for (first, second), places in sorted(shared.items())
            if places * NOISE_THRESHOLD >= MIN_OVERLAP
            and (answers[first].name in current or answers[second].name in current)]


def _given(stub: str) -> frozenset[str]:
    """The normalized statements every student was handed: the stub's, and those its docstrings spell out."""
    imported = _imported(_tokens(stub))
    statements: set[str] = set()
    for code in (stub, _docstring_code(stub)):
        text, _ = _normalized(code, imported=imported)
        statements |= {part + ";" for part in re.split(r"[;{}]", text) if part}
    return frozenset(statements)


def _boilerplate(stub: str, given: frozenset[str]) -> set[int]:
    """Every k-gram of the stub, with its given statements and without (as answers are fingerprinted), and of
    its docstrings' code."""
    imported = _imported(_tokens(stub))
    hashes: set[int] = set()
    for text in (_normalized(stub)[0], _normalized(stub, given)[0],
                 _normalized(_docstring_code(stub), imported=imported)[0]):
        hashes |= set(kgram_hashes(text, NOISE_THRESHOLD))
    return hashes


def _fingerprinted(name: str, source: str, given: frozenset[str], boilerplate: set[int]) -> _Answer:
    text, lines = _normalized(source, given)
    fingerprint = Fingerprint.of(text, NOISE_THRESHOLD)
    fingerprint.drop(boilerplate)
    return _Answer(name, fingerprint, lines)


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    tokens: list[tokenize.TokenInfo] = []
    try:
        tokens.extend(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        pass  # an answer that does not tokenize to its end is compared as far as it does
    return tokens


def _imported(tokens: list[tokenize.TokenInfo]) -> set[str]:
    """The names import statements bind (torch, np, F): kept as written, since they name APIs."""
    names: set[str] = set()
    words: list[str] = []  # a statement's names and commas
    for token in tokens + [None]:
        if token is None or token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
            if words[:1] == ["from"] and "import" in words:
                words = words[words.index("import"):]
            if words[:1] == ["import"]:
                items = " ".join(words[1:]).split(",")  # "import a.b as c, d" binds c and d
                names |= {item.split()[-1] if " as " in f" {item} " else item.split()[0]
                          for item in items if item.split()}
            words = []
        elif token.type == tokenize.NAME or token.string == ",":
            words.append(token.string)
    return names


def _normalized(source: str, given: frozenset[str] = frozenset(),
                imported: frozenset[str] | set[str] = frozenset()) -> tuple[str, list[int]]:
    """An answer's code as it is compared (statements in `given` left out), and the source line of each character.

    Names its imports bind (and `imported`, for a snippet without them) are kept as written."""
    tokens = _tokens(source)
    kept = _KEPT_NAMES | _imported(tokens) | imported
    text: list[str] = []
    lines: list[int] = []
    statement: list[tuple[str, int]] = []  # the pieces of the statement being read, with their lines
    brackets = in_fstring = 0
    for i, token in enumerate(tokens):
        kind, string = token.type, token.string
        before = tokens[i - 1] if i else None
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if _FSTRING_START is not None and kind in (_FSTRING_START, _FSTRING_END):
            in_fstring += 1 if kind == _FSTRING_START else -1
            piece = "S" if kind == _FSTRING_START and in_fstring == 1 else ""
        elif in_fstring or kind in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER):
            piece = ""
        elif kind in (tokenize.INDENT, tokenize.DEDENT):
            text.append("{" if kind == tokenize.INDENT else "}")
            lines.append(_NO_LINE)  # a block's bounds are not a line of code anyone wrote
            continue
        elif kind == tokenize.NEWLINE:
            piece = ";" if statement else ""
        elif kind == tokenize.STRING:
            alone = (before is None or before.type in _LINE_STARTS) and \
                    (after is None or after.type in (tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENDMARKER))
            piece = "" if alone else "S"  # a string standing alone is a docstring, or a comment
        elif kind == tokenize.NAME:
            attribute = before is not None and before.string == "."
            keyword_argument = brackets > 0 and after is not None and after.string == "="
            piece = string if string in kept or attribute or keyword_argument else "V"
        else:
            brackets += string in ("(", "[", "{")
            brackets -= brackets > 0 and string in (")", "]", "}")
            piece = string
        if piece:
            statement.append((piece, token.start[0]))
        if kind == tokenize.NEWLINE or after is None:
            if "".join(piece for piece, _ in statement) not in given:
                for piece, line in statement:
                    text.append(piece)
                    lines.extend([line] * len(piece))
            statement = []
    return "".join(text), lines


def _docstring_code(stub: str) -> str:
    """The code the stub's docstrings hand out: their lines and `backticked` spans that parse as statements."""
    try:
        tree = ast.parse(stub)
    except SyntaxError:
        return ""
    pieces = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node) or ""
            pieces += [piece for piece in [line.strip() for line in doc.splitlines()] + _BACKTICKED.findall(doc)
                       if _is_code(piece)]
    return "\n".join(pieces)


def _is_code(text: str) -> bool:
    """Whether a line of a docstring is a statement that does something (a call, an assignment, a sum), not prose."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    return any(isinstance(node, (ast.Call, ast.Assign, ast.AugAssign, ast.BinOp)) for node in ast.walk(tree))


def _length(slices: list[tuple[int, int]]) -> int:
    return sum(end - start for start, end in slices)


def _blocks(lines: list[int], slices: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The source lines holding the matching slices of normalized code, as runs of consecutive lines
    (a slice that runs from one function's body into the next leaves out the signature and docstring between)."""
    matched = sorted({lines[at] for start, end in slices for at in range(start, end)} - {_NO_LINE})
    blocks: list[tuple[int, int]] = []
    for line in matched:
        if blocks and line == blocks[-1][1] + 1:
            blocks[-1] = (blocks[-1][0], line)
        else:
            blocks.append((line, line))
    return blocks


def similarity_csv(pairs: list[Pair]) -> str:
    """similarity.csv: exercise, first, second, similarity, first_lines, second_lines ("3-7 12-14")."""
    buffer = io.StringIO()
    writer = guarded_writer(buffer, lineterminator="\n")
    writer.writerow(["exercise", "first", "second", "similarity", "first_lines", "second_lines"])
    for pair in pairs:
        writer.writerow([pair.exercise, text_cell(pair.first), text_cell(pair.second), f"{pair.similarity:.3f}",
                         _ranges(pair.first_blocks), _ranges(pair.second_blocks)])
    return buffer.getvalue()


def _ranges(blocks: list[tuple[int, int]]) -> str:
    return " ".join(f"{first}-{last}" if last > first else str(first) for first, last in blocks)


def alike_groups(pairs: list[tuple[str, str, str]]) -> list[tuple[str, list[str]]]:
    """Per exercise, the students linked by listed pairs (exercise, first, second), each group sorted, largest
    first: eight students who handed in one answer are one finding to review, not 28 pairs."""
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def root(node: tuple[str, str]) -> tuple[str, str]:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for exercise, first, second in pairs:
        parent[root((exercise, first))] = root((exercise, second))
    groups: dict[tuple[str, str], list[str]] = {}
    for node in list(parent):
        groups.setdefault(root(node), []).append(node[1])
    found = [(top[0], sorted(members)) for top, members in groups.items()]
    return sorted(found, key=lambda group: (-len(group[1]), group[0], group[1]))

