"""The similarity check (graders/frontends/grade/outputs/similarity.py) on a big synthetic class: seconds and pairs found.

    python benchmarks/similarity_speed.py [--students 500] [--seed 0] [--check 30]

Builds a class of `--students` students x the lesson's 14 exercises. Honest students hand in the
reference, or, for the four exercises of tests/frontends/test_similarity.py, each function as one of
three of its students wrote it, drawn anew for every function; every name they make up is renamed at
random, and one in ten of their exercises is the untouched stub. Five copied pairs are planted among them (a classmate's
answer with new names and comments, lines reordered or rewritten). Times `similar_pairs`, prints the
seconds, how many pairs were compared in full, the pairs found, and whether they are the planted ones.
Then, on a class of `--check` students built alike, compares what the index finds at threshold 0 with what
comparing every pair in full finds (the index must lose none).
"""

from __future__ import annotations

import argparse
import builtins
import io
import itertools
import keyword
import random
import sys
import time
import tokenize

import course_config
from graders.frontends.grade.outputs import similarity

ROOT = course_config.ROOT
sys.path.insert(0, str(ROOT / "tests" / "frontends"))
sys.path.insert(1, str(ROOT / "tests"))  # test_similarity imports the tests' conftest (the committed stubs)
import test_similarity as answers_of  # noqa: E402  (the hand-written answers and copies the tests use)

STUB_SHARE = 0.1
# Honest variants: the planted copies' originals are left out, so that each planted answer is one of a kind.
HONEST = ("ana", "dev", "emma")
PLANTED = [  # exercise, the original, the copy
    ("grad_accumulation", answers_of.ACCUMULATION["ben"], answers_of.FINN_ACCUMULATION),
    ("finite_differences", answers_of.FINITE["chloe"], answers_of.GUS_FINITE),
    ("sin_exp_derivative", answers_of.ZOE_SIN_EXP, answers_of.JAY_SIN_EXP),
    ("quadratic_fit", answers_of.QUADRATIC["chloe"], answers_of.EDITED["quadratic_fit", "chloe"]),
    ("quadratic_fit", answers_of.QUADRATIC["ben"], answers_of.EDITED["quadratic_fit", "ben"]),
]


def renamed(source: str, rng: random.Random) -> str:
    """`source` with every name it makes up renamed at random (not attributes, keyword arguments, builtins,
    imports, functions or the stub's parameters: the grader calls those by name)."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    fixed = set(dir(builtins)) | set(keyword.kwlist) | {"torch", "np", "Tensor", "Callable", "nn"}
    fixed |= {t.string for i, t in enumerate(tokens) if i and tokens[i - 1].string in ("def", "class", "import", "as")}
    fixed |= {t.string for i, t in enumerate(tokens) if _in_brackets(tokens, i) and tokens[i - 1].string in ("(", ",")
              and _in_signature(tokens, i)}
    at = [i for i, t in enumerate(tokens) if t.type == tokenize.NAME and t.string not in fixed
          and tokens[i - 1].string != "." and not (tokens[i + 1].string == "=" and _in_brackets(tokens, i))]
    new = {name: f"{name}_{rng.randrange(10**6)}" for name in sorted({tokens[i].string for i in at})}
    lines = source.splitlines(keepends=True)
    for i in reversed(at):  # from the end, so that earlier positions on a line stay right
        (row, col), (_, end) = tokens[i].start, tokens[i].end
        lines[row - 1] = lines[row - 1][:col] + new[tokens[i].string] + lines[row - 1][end:]
    return "".join(lines)


def _in_brackets(tokens: list[tokenize.TokenInfo], at: int) -> bool:
    depth = 0
    for t in reversed(tokens[:at]):
        if t.type == tokenize.NEWLINE:
            return False
        depth += t.string in ")]}"
        depth -= t.string in "([{"
        if depth < 0:
            return True
    return False


def _in_signature(tokens: list[tokenize.TokenInfo], at: int) -> bool:
    for t in reversed(tokens[:at]):
        if t.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            return False
        if t.string == "def":
            return True
    return False


def build_class(students: int, seed: int) -> tuple[dict[str, dict[str, str]], set[tuple[str, str, str]]]:
    """The class, and the planted pairs (exercise, first, second)."""
    rng = random.Random(seed)
    stubs = stub_sources()
    written = dict(zip(answers_of.EXERCISES, (answers_of.SIN_EXP, answers_of.FINITE, answers_of.QUADRATIC,
                                              answers_of.ACCUMULATION)))
    names = [f"student{number:04d}" for number in range(students)]
    answers: dict[str, dict[str, str]] = {name: {} for name in names}
    for slug, stub in stubs.items():
        if slug in written:  # each function's body from one of the hand-written variants, drawn anew
            options = [bodies(stub, written[slug][variant]) for variant in HONEST]
            draw = lambda: assembled(stub, [rng.choice(options)[at] for at in range(len(options[0]))])  # noqa: E731
        else:
            draw = lambda: (ROOT / "reference" / "lesson01" / f"{slug}.py").read_text()  # noqa: E731
        for name in names:
            answers[name][slug] = stub if rng.random() < STUB_SHARE else renamed(draw(), rng)
    planted = set()
    chosen = rng.sample(names, 2 * len(PLANTED))
    for (slug, original, copy), first, second in zip(PLANTED, chosen[::2], chosen[1::2]):
        answers[first][slug], answers[second][slug] = renamed(original, rng), renamed(copy, rng)
        planted.add((slug, *sorted((first, second))))
    return answers, planted


def bodies(stub: str, answer: str) -> list[str]:
    """The bodies an answer wrote in place of the stub's TODOs (the answer keeps the stub's docstrings)."""
    parts = stub.split(answers_of.TODO)
    found, at = [], len(parts[0])
    for part in parts[1:]:
        end = answer.index(part, at) if part else len(answer)
        found.append(answer[at:end])
        at = end + len(part)
    return found


def assembled(stub: str, chosen: list[str]) -> str:
    parts = stub.split(answers_of.TODO)
    return parts[0] + "".join(body + part for body, part in zip(chosen, parts[1:]))


def stub_sources() -> dict[str, str]:
    return {e.slug: (ROOT / "exercises" / "lesson01" / f"{e.slug}.py").read_text()
            for e in course_config.LESSON_01.exercises}


Answer = similarity._Answer


def every_pair(answers: list[Answer], current: set[str]) -> list[tuple[Answer, Answer]]:
    """What the index stands in for: every pair with one answer of this term."""
    return [(a, b) for a, b in itertools.combinations(answers, 2) if a.name in current or b.name in current]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", type=int, default=30, help="students on whom the index is checked (0: none)")
    options = parser.parse_args()
    answers, planted = build_class(options.students, options.seed)
    stubs = stub_sources()
    compared = []
    candidates = similarity._candidates
    similarity._candidates = lambda written, current: compared.append(candidates(written, current)) or compared[-1]
    try:
        started = time.perf_counter()
        pairs = similarity.similar_pairs(answers, stubs)
        seconds = time.perf_counter() - started
    finally:
        similarity._candidates = candidates
    found = {(pair.exercise, pair.first, pair.second) for pair in pairs}
    every = len(stubs) * options.students * (options.students - 1) // 2
    print(f"{options.students} students x {len(stubs)} exercises: similar_pairs took {seconds:.1f} s; "
          f"pairs compared in full: {sum(map(len, compared))} of {every} "
          f"(at most {max(map(len, compared))} for an exercise)")
    print(f"pairs found: {len(pairs)}; the {len(planted)} planted copies found: {len(found & planted)}; "
          f"others: {len(found - planted)}")
    for pair in pairs:
        print(f"  {pair.similarity:.3f}  {pair.exercise}: {pair.first} and {pair.second}"
              f"{'' if (pair.exercise, pair.first, pair.second) in planted else '  (not planted)'}")
    if options.check:
        few, _ = build_class(options.check, options.seed)
        indexed = similarity.similar_pairs(few, stubs, threshold=0.0)
        candidates, similarity._candidates = similarity._candidates, every_pair
        try:
            started = time.perf_counter()
            everything = similarity.similar_pairs(few, stubs, threshold=0.0)
            seconds = time.perf_counter() - started
        finally:
            similarity._candidates = candidates
        print(f"index against every pair, {options.check} students, threshold 0: "
              f"{'the same' if indexed == everything else 'DIFFERENT'} {len(indexed)} pairs "
              f"(every pair took {seconds:.1f} s)")


if __name__ == "__main__":
    main()
