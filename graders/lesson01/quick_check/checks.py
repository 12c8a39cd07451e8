"""Checks of `quick_check` (the companion's Quick Check: ten multiple-choice questions).

The graded checks are hidden: they run only on the instructor's side (the batch grader, nbgrader's
autograde), never on a student's machine. With at most four options a question, anything released
that tells a right option from a wrong one gives the answers away: a salted digest is undone by
trying every letter, a check run locally is an oracle, and even a wrong option's misconception
names what the right one is not. Form B (the same options in another order, both printed by the
stub) then follows by matching texts. So the one public check, `answers_well_formed`, worth no
points, says only whether answers() and answers("B") are well formed; nothing it uses (and nothing
in the student bundle: graders/frontends/nbgrader/public_checks.py keeps only what it uses) can tell
a right option from a wrong one.

Each pair of questions is graded in both forms: it pays only if form A and form B answer both of
its questions right. The graded checks' right options are not written in plain text even on the
instructor's side: each is a salted SHA-256 digest of its question number and letter (`_digest`),
and so is every wrong option, mapped to the misconception that explains it; `FORM_B_ORDER` maps
form B's letters back to form A's, so one table of digests serves both forms.
"""

from __future__ import annotations

import hashlib

from graders.kit import Mistake, Returned, Student, checks_for, describe, exercise, fail
from graders.lesson01.quick_check.mistakes import (ALIGNED_FROM_THE_LEFT, ANSWERS_CHANGE_BETWEEN_CALLS,
                                                   ARANGE_AS_FLOAT32, BACKWARD_ONCE_ONLY,
                                                   DATA_TO_STOP_TRACKING, DETACH_AS_NO_GRAD,
                                                   DTYPES_CONVERT_THEMSELVES, FORM_LETTERS_REUSED, FORMS_DISAGREE,
                                                   FORMS_SWAPPED,
                                                   FORWARD_MODE_AS_FINITE_DIFFERENCES, GRAD_OVERWRITTEN,
                                                   INT32_AS_DEFAULT, LARGER_RATE_IS_FASTER, MISMATCH_RAISES,
                                                   NUMPY_FLOAT64_EXPECTED, NUMPY_OF_TRACKED_TENSOR, OVERSHOOT_SETTLES,
                                                   RATE_BLAMED, REVERSE_MODE_AS_DYNAMIC_GRAPH,
                                                   REVERSE_MODE_WITHOUT_GRAPH, ROUNDING_BLAMED, SIZE_ONE_VANISHES,
                                                   TOO_FEW_STEPS, VIEW_AS_RESHAPE, VIEW_OF_NON_CONTIGUOUS)

EXERCISE = exercise("lesson01", "quick_check")
check = checks_for("lesson01", EXERCISE.slug)
STUB = f"exercises/lesson01/{EXERCISE.slug}.py"  # not mistakes.STUB: the public check imports no misconception

SALT = "1c6861fc9cbf9b2869dece73c73e30f7"
OPTIONS = {1: "abcd", 2: "abc", 3: "abcd", 4: "abcd", 5: "abc", 6: "abcd", 7: "abc", 8: "abcd", 9: "abc", 10: "abcd"}
# Form B's option i is form A's option FORM_B_ORDER[q][i]; no option keeps its letter.
FORM_B_ORDER = {1: "cdab", 2: "bca", 3: "bdac", 4: "cadb", 5: "cab", 6: "dcab", 7: "cab", 8: "cdab", 9: "bca",
                10: "cdab"}
RIGHT = {
    1: "75f4b9d123046f046aa905c5",
    2: "f8b86ed668a09628d9edf6b9",
    3: "61d47585c552225b205f0f35",
    4: "86418c42109c38f604850941",
    5: "d286befe200ed700c2fe7835",
    6: "894d0a3cc92e8571b479aef9",
    7: "d651d763b94bcc15155f2fbe",
    8: "9a1f51f27697ccd4197f35ad",
    9: "e8624f213bee5baccaad4837",
    10: "c1c24aa7cb665a4ab684a783",
}


# Every wrong option of form A, by its digest (sorted by digest, so the order tells nothing).
WRONG = {
    "06eca834a60d3f5b4b3ed157": DATA_TO_STOP_TRACKING,
    "0e5c5e6c86918dda03739827": VIEW_OF_NON_CONTIGUOUS,
    "233ee2aa3e97a34e30432dd6": DETACH_AS_NO_GRAD,
    "288293d554bb5d25a7ef122a": REVERSE_MODE_WITHOUT_GRAPH,
    "38a27130768b1e08bee39cd2": LARGER_RATE_IS_FASTER,
    "3a4ed8d16131f0227ed94189": DTYPES_CONVERT_THEMSELVES,
    "42abd959d21dbf87b7265468": ARANGE_AS_FLOAT32,
    "46e7653af1e0000905400016": GRAD_OVERWRITTEN,
    "4a268563ad03082dce58963d": DTYPES_CONVERT_THEMSELVES,
    "54b3eb7a503d4c099561f52a": ROUNDING_BLAMED,
    "5516674cf82805bd13ff0cbb": RATE_BLAMED,
    "7e77469470ec5c8fb00f169b": SIZE_ONE_VANISHES,
    "81c084f6829ea289a1fec00c": MISMATCH_RAISES,
    "92bf45ab09d25ed5bc9130fe": OVERSHOOT_SETTLES,
    "944e877a9dd69fedc18be4c3": NUMPY_OF_TRACKED_TENSOR,
    "9fcc69fd2eabcef5985087ac": REVERSE_MODE_AS_DYNAMIC_GRAPH,
    "a63593b067221ec35d7e8665": FORWARD_MODE_AS_FINITE_DIFFERENCES,
    "a69e221068fb02f97a0140be": VIEW_AS_RESHAPE,
    "b08efbb9e918f5269392409c": BACKWARD_ONCE_ONLY,
    "be0d66deae42970f0e1e1091": ALIGNED_FROM_THE_LEFT,
    "c03c83f32f6d7dac63a684bb": DATA_TO_STOP_TRACKING,
    "d72c3d24371eca0127d6cae9": TOO_FEW_STEPS,
    "dbf72c65ff106260eb8eabde": NUMPY_OF_TRACKED_TENSOR,
    "e83261b7e442efb39dfbea6c": INT32_AS_DEFAULT,
    "eb9e72fde68f424f0b762bea": NUMPY_FLOAT64_EXPECTED,
    "f66acd730a19aaa5c34f8831": VIEW_OF_NON_CONTIGUOUS,
}

FORMAT = 'a dict from every question number (the ints 1 to 10) to one letter, e.g. {1: "d", 2: "b", ...}'


def _digest(question: int, letter: str) -> str:
    return hashlib.sha256(f"{SALT}:{question}:{letter}".encode()).hexdigest()[:24]


def _chosen(returned: Returned, questions: tuple[int, ...], keys_judged: bool = True) -> dict[int, str]:
    """The letters the student chose for `questions`, lower-cased; fails naming every missing or invalid one.

    With `keys_judged` false (the graded checks, which judge the letters), a question found under a string key
    that names it ("1", "q1") is read there: the key's type is answers_well_formed's to judge, so that right
    letters under string keys do not score like a blank answer."""
    __tracebackhide__ = True
    value = returned.value
    if type(value) is not dict:
        fail("answers must return a dict from question numbers to letters.", call=returned.call,
             got=describe(value), expected=FORMAT, hint="Return a dict literal: {1: ..., 2: ..., ..., 10: ...}.",
             section=f"the docstring of answers in {STUB}")
    numbers = {key for key in value if type(key) is int}
    if numbers and numbers == {question - 1 for question in OPTIONS}:
        # Every letter sits under the number of the question before it: judging the letters would name
        # misconceptions about questions the student did not answer there.
        fail(f"{returned.call} numbers the questions from 0; they are numbered from 1.", call=returned.call,
             got=f"a dict with the keys {min(numbers)} to {max(numbers)}", expected=FORMAT,
             mistake="questions numbered from 0",
             meaning="Each letter is under the number of the question before it, so no letter is read as the "
                     "answer to the question it was meant for.",
             hint=f"Use the question numbers the docstring prints, 1 to {max(OPTIONS)}: {{1: ..., 2: ..., ...}}.",
             section=f"the questions in the docstring of {STUB}")
    chosen, problems = {}, []
    for question in questions:
        letters = ", ".join(OPTIONS[question])
        near = [key for key in value if type(key) is str and key.strip().lower().lstrip("q") == str(question)]
        if question not in value and near and not keys_judged:
            value = {**value, question: value[near[0]]}
        answer = value.get(question)
        if question not in value:
            problems.append(f"question {question} has no answer"
                            + (f" (your key {near[0]!r} is a string: use the int {question})" if near else ""))
        elif type(answer) is not str:
            problems.append(f"question {question}: {describe(answer)} is not a letter; give one of {letters}")
        elif answer.strip().lower() not in OPTIONS[question]:
            problems.append(f"question {question}: {answer!r} is not one of its options ({letters})")
        else:
            chosen[question] = answer.strip().lower()
    if problems:
        fail(f"{returned.call} does not give a valid answer to every question checked here.", call=returned.call,
             got="\n".join(problems), expected=FORMAT,
             hint="Answer each question with the letter of one of its options, as a string.",
             section=f"the questions in the docstring of {STUB}")
    return chosen


def _wrong(chosen: dict[int, str]) -> list[tuple[int, Mistake | None]]:
    """The questions answered wrong (letters in form A), each with the misconception its option stands for."""
    return [(question, WRONG.get(_digest(question, letter))) for question, letter in chosen.items()
            if _digest(question, letter) != RIGHT[question]]


def _fail_wrong(returned: Returned, wrong: list[tuple[int, Mistake | None]], shown: dict[int, str],
                form: str) -> None:
    """Fail naming each wrong question's misconception, without saying which option is right."""
    __tracebackhide__ = True
    numbers = [str(question) for question, _ in wrong]
    which = f"Question {numbers[0]} is" if len(numbers) == 1 else \
        f"Questions {', '.join(numbers[:-1])} and {numbers[-1]} are"
    got = ", ".join(f"question {question}: {shown[question]!r}" for question, _ in wrong)
    parts = []
    for question, mistake in wrong:
        if mistake is None:  # only if WRONG and the stub's options have drifted apart
            parts.append((question, "", "That option is not right.",
                          "Re-read the section named after the question.", EXERCISE.section))
        else:
            parts.append((question, mistake.name, mistake.explanation, mistake.hint, mistake.section))
    first = parts[0]
    meaning = (f"Question {first[0]}: " if len(parts) > 1 else "") + first[2] + "".join(f"\nQuestion {q}{f' ({name})' if name else ''}: {text}"
                                 for q, name, text, _, _ in parts[1:])
    hints = list(dict.fromkeys(part[3] for part in parts))
    sections = list(dict.fromkeys(part[4] for part in parts))
    fail(f"Form {form}: {which} not answered right.", call=returned.call, got=got,
         expected="another option (the lesson section below explains which)",
         mistake=first[1] or None, meaning=meaning, hint=" ".join(hints), section="; ".join(sections))


def _as_form_a(chosen: dict[int, str]) -> dict[int, str]:
    """Letters of form B as the same options' letters in form A."""
    return {q: FORM_B_ORDER[q]["abcd".index(letter)] for q, letter in chosen.items()}


def _all_letters(value: object) -> dict[int, str] | None:
    """The ten letters of an answers() dict, lower-cased, if it answers every question with one of its options."""
    if type(value) is not dict:
        return None
    letters = {q: value.get(q) for q in OPTIONS}
    if not all(type(v) is str and v.strip().lower() in OPTIONS[q] for q, v in letters.items()):
        return None
    return {q: v.strip().lower() for q, v in letters.items()}


# Asked of a module loaded afresh (Student.probe): form A, form B, then form A again.
IN_TURN = [("answers", ("A",), {}), ("answers", ("B",), {}), ("answers", ("A",), {})]


def _fail_if_calls_change_answers(student: Student, returned: Returned) -> None:
    """A module loaded afresh that answers form A otherwise after answers("B") has run keeps state between calls:
    whatever letters this check got depend on what ran before it, so no misconception is named for them."""
    __tracebackhide__ = True
    answers = student.probe(IN_TURN, seconds=5.0)
    if answers is not None and answers[0] != answers[2]:
        fail(f"{returned.call} gives other letters once answers(\"B\") has run.",
             call='answers("A"), answers("B"), then answers("A") again, in a module loaded afresh',
             got=f"{describe(answers[0])}, then {describe(answers[2])}", expected="the same letters both times",
             mistake=ANSWERS_CHANGE_BETWEEN_CALLS)


def _fail_if_other_form(student: Student, returned: Returned, form: str) -> None:
    """Form A's letters where form B's are asked for, or answers() not giving form A: the forms got swapped. Said
    so, rather than naming a misconception for each question, since the options were chosen well. Told without
    form B's key (which stays out of the released checks): form A's letters are checked as they are, and
    answers() against answers("A")."""
    __tracebackhide__ = True
    if form == "B":
        chosen = _all_letters(returned.value)
        if chosen is not None and not _wrong(chosen):
            fail(f"Form B: the letters of {returned.call} are the right answers of form A, not of form B.",
                 call=returned.call, got=describe(returned.value), expected="form B's letters, for the same options",
                 mistake=FORMS_SWAPPED)
        return
    if returned.call == "answers()":
        asked = student.call("answers", "A", shown_as='answers("A")', allow_raise=True)
        if asked.error is None and _all_letters(asked.value) is not None and asked.value != returned.value:
            fail('answers() and answers("A") give different letters: the default form must be "A".',
                 call='answers() and answers("A")', got=f"{describe(returned.value)} and {describe(asked.value)}",
                 expected='the same letters, form A\'s: the docstring\'s signature is answers(form: str = "A")',
                 mistake=FORMS_SWAPPED)
    other = student.call("answers", "B", shown_as='answers("B")', allow_raise=True)
    chosen = _all_letters(other.value) if other.error is None else None
    if chosen is not None and not _wrong(chosen):
        fail(f"Form A is not answered right, and answers(\"B\") gives the right answers of form A.",
             call=f'{returned.call} and answers("B")', got=f"{describe(returned.value)} and {describe(other.value)}",
             expected="form A's letters from answers(), form B's from answers(\"B\")", mistake=FORMS_SWAPPED)


def _check_pair(student: Student, questions: tuple[int, ...]) -> None:
    """The questions answered right in form A, then in form B (the same options, reordered)."""
    __tracebackhide__ = True
    returned = student.call("answers", shown_as="answers()")
    chosen = _chosen(returned, questions, keys_judged=False)
    wrong = _wrong(chosen)
    if wrong:
        _fail_if_calls_change_answers(student, returned)
        _fail_if_other_form(student, returned, "A")
        _fail_wrong(returned, wrong, chosen, "A")
    returned = student.call("answers", "B", shown_as='answers("B")')
    chosen = _chosen(returned, questions, keys_judged=False)
    wrong = _wrong(_as_form_a(chosen))
    if wrong:
        _fail_if_calls_change_answers(student, returned)
        _fail_if_form_a_letters(student, returned, f"{len(wrong)} of questions {' and '.join(map(str, questions))}",
                                wrong)
        _fail_if_other_form(student, returned, "B")
        _fail_if_form_a_right(student, returned, wrong)
        _fail_wrong(returned, wrong, chosen, "B")


def _fail_if_form_a_right(student: Student, returned: Returned, wrong: list[tuple[int, Mistake | None]]) -> None:
    """Form B wrong only on questions that form A answers right: the student's own form A contradicts the
    misconception form B's option stands for, so the disagreement of the two forms is what is told."""
    __tracebackhide__ = True
    form_a = student.call("answers", shown_as="answers()", allow_raise=True)
    letters = _all_letters(form_a.value) if form_a.error is None else None
    if letters is None or any(_digest(question, letters[question]) != RIGHT[question] for question, _ in wrong):
        return
    numbers = ", ".join(str(question) for question, _ in wrong)
    fail(f"Form B: question{'s' if len(wrong) > 1 else ''} {numbers} not answered as your form A answers "
         f"{'them' if len(wrong) > 1 else 'it'}.", call=f"answers() and {returned.call}",
         got=", ".join(f"question {question}: {returned.value.get(question)!r}" for question, _ in wrong),
         expected="the letters form B gives the options you chose in form A", mistake=FORMS_DISAGREE)


def _fail_if_form_a_letters(student: Student, returned: Returned, how_many: str,
                            wrong: list[tuple[int, Mistake | None]] = ()) -> None:
    """Form B answered wrong with the very letters of form A: say that, rather than each option's misconception.
    So too where every question wrong in form B (`wrong`) has form A's letter for it, right in form A: a letter
    copied from one form to the other, not the misconception the option it lands on stands for."""
    __tracebackhide__ = True
    form_a = student.call("answers", shown_as="answers()", allow_raise=True)
    if form_a.error is None and form_a.value == returned.value:
        fail(f'Form B: {how_many} are not answered right, and answers("B") gives the same letters as answers().',
             call=returned.call, got=describe(returned.value), mistake=FORM_LETTERS_REUSED)
    letters_a, letters_b = (_all_letters(form_a.value) if form_a.error is None else None), _all_letters(returned.value)
    if not wrong or letters_a is None or letters_b is None:
        return
    copied = [q for q, _ in wrong if letters_b[q] == letters_a[q] and not _wrong({q: letters_a[q]})]
    if len(copied) == len(wrong):
        which = ", ".join(f"question {q} ({letters_b[q]})" for q in copied)
        fail(f"Form B: {how_many} are not answered right, each with the letter your form A gives it.",
             call=returned.call, got=describe(returned.value), mistake=FORM_LETTERS_REUSED.name,
             meaning=f"In form B, {which} has the letter of your right answer in form A; but form B lists the options "
                     "of each question in another order, so that letter points at another option.",
             hint=FORM_LETTERS_REUSED.hint, section=FORM_LETTERS_REUSED.section)


# ---------------------------------------------------------------- public checks

@check
def test_answers_well_formed(student: Student) -> None:
    # Worth no points, and blind to which options are right: it may run on a student's machine.
    form_a = student.call("answers", shown_as="answers()")
    letters_a = _chosen(form_a, tuple(OPTIONS))
    asked = student.call("answers", "A", shown_as='answers("A")')
    if _chosen(asked, tuple(OPTIONS)) != letters_a:
        fail('answers() and answers("A") give different letters: the default form must be "A".',
             call='answers() and answers("A")', got=f"{describe(form_a.value)} and {describe(asked.value)}",
             expected='the same letters, form A\'s: the docstring\'s signature is answers(form: str = "A")',
             hint='Keep the signature answers(form: str = "A").', section=f"the docstring of answers in {STUB}")
    asked_b = student.call("answers", "B", shown_as='answers("B")')
    if _chosen(asked_b, tuple(OPTIONS)) == letters_a:
        fail('answers("B") gives the same letters as answers(), but form B lists every question\'s options in '
             'another order: the same letters point at other options.', call='answers() and answers("B")',
             got=describe(asked_b.value), expected="form B's letters for the options you chose in form A",
             hint="Answer form B from what its options say, in the \"Form B\" part of the docstring.",
             section=f'the "Form B" part of the docstring in {STUB}')


# ---------------------------------------------------------------- hidden checks (graded)

@check
def test_answers_tensor_dtypes(student: Student) -> None:
    _check_pair(student, (1, 2))


@check
def test_answers_shapes_and_views(student: Student) -> None:
    _check_pair(student, (3, 4))


@check
def test_answers_backward_and_modes(student: Student) -> None:
    _check_pair(student, (5, 6))


@check
def test_answers_stopping_tracking(student: Student) -> None:
    _check_pair(student, (7, 8))


@check
def test_answers_rate_and_remaining_loss(student: Student) -> None:
    _check_pair(student, (9, 10))


@check
def test_answers_form_b(student: Student) -> None:
    returned = student.call("answers", "B", shown_as='answers("B")')
    chosen = _chosen(returned, tuple(OPTIONS), keys_judged=False)
    wrong = _wrong(_as_form_a(chosen))
    if not wrong:
        return
    _fail_if_form_a_letters(student, returned, f"{len(wrong)} of the 10 questions", wrong)
    _fail_if_other_form(student, returned, "B")
    _fail_if_form_a_right(student, returned, wrong)
    _fail_wrong(returned, wrong, chosen, "B")
