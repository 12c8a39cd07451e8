"""Checks of `quick_check` (the companion's Quick Check: ten multiple-choice questions).

The right options are not written here. Each is kept as a salted SHA-256 digest of its
question number and letter (`_digest`), and so is every wrong option, mapped to the
misconception that explains it; reading this file shows neither. Digests keep answers
from being read off; they cannot stop trial and error, which the per-pair feedback
allows anyway. Form B (the hidden check) lists the same options in another order:
`FORM_B_ORDER` maps its letters back to form A's, so one table of digests serves both.
When the reference is live, each public pair of form A is asked again in form B (its twin
run, graders/engine/fresh.py), so letters found by trial and error against the released checks earn
nothing; the order stays out of the released checks (`form_b_order` is @expected).
"""

from __future__ import annotations

import hashlib

from graders.kit import Mistake, Returned, Student, checks_for, describe, exercise, expected, fail, twin

EXERCISE = exercise("lesson01", "quick_check")
check = checks_for("lesson01", EXERCISE.slug)

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

STUB = "exercises/lesson01/quick_check.py"
TENSORS = '"Tensors": the first example, and "Three attributes describe every tensor"'
DTYPES = '"Common pitfalls": mixing dtypes'
BROADCASTING = '"Common pitfalls": shape mismatches that broadcast silently; the companion\'s "Shapes and Broadcasting"'
VIEWS = 'the companion\'s "Reshape vs. View vs. Contiguous"'
ACCUMULATION = '"Worked example", the loop that calls backward() three times on x ** 2'
AUTODIFF = ('the companion\'s "Why Do We Need Automatic Differentiation?", "Forward Mode vs. Reverse Mode" and '
            '"Key Takeaways"')
DYNAMIC = 'the companion\'s "Dynamic vs. Static Graphs", and "define by run" at the end of "Autograd"'
TRIANGLE = 'the companion\'s "The Detach / no_grad / .data Triangle"'
NUMPY = '"Common pitfalls": calling .numpy() on a tracked tensor'
RATE = '"Try it yourself", exercise 1, and "The intuition" (stepping downhill)'
READING = '"Worked example", "Reading the output"'

ARANGE_AS_FLOAT32 = Mistake(
    "arange taken for float32",
    "float32 is the usual dtype of data and weights, and what a list of floats becomes; but torch.arange(6) is "
    "made of whole numbers only, and a tensor of whole numbers gets an integer dtype.",
    "Print torch.arange(6).dtype, and read the comment beside d = torch.arange(6) in the lesson.",
    TENSORS,
)
NUMPY_FLOAT64_EXPECTED = Mistake(
    "NumPy's float64 expected",
    "float64 is NumPy's default for arrays of floats, and torch.from_numpy keeps it; torch.arange(6) comes "
    "neither from NumPy nor from floats.",
    "Print torch.arange(6).dtype, and read the comment beside d = torch.arange(6) in the lesson.",
    TENSORS,
)
INT32_AS_DEFAULT = Mistake(
    "int32 taken for the default integer type",
    "int32 is an integer dtype, but not the one PyTorch picks for whole numbers unless asked; the lesson names "
    "that default where it says which dtype class labels use.",
    "Print torch.arange(6).dtype, and read the lesson's line on dtype under \"Three attributes\".",
    TENSORS,
)
DTYPES_CONVERT_THEMSELVES = Mistake(
    "mixed dtypes assumed to convert themselves",
    "PyTorch converts neither a float64 input to the weights' float32 nor the weights to the input's float64: "
    "torch.from_numpy keeps NumPy's float64, and the matrix multiply inside nn.Linear needs one dtype on both sides.",
    "Try nn.Linear(1, 1)(torch.from_numpy(np.ones((3, 1)))) and read what PyTorch says.",
    DTYPES,
)
ALIGNED_FROM_THE_LEFT = Mistake(
    "shapes lined up from the left",
    "Broadcasting compares dimensions from the right: y's one dimension of 100 lines up with pred's last "
    "dimension, the one of size 1, and y's missing dimension on the left counts as 1.",
    "Write the two shapes right-aligned, one under the other, and apply the rules to each pair; or print "
    "(torch.zeros(100, 1) - torch.zeros(100)).shape.",
    BROADCASTING,
)
SIZE_ONE_VANISHES = Mistake(
    "size-1 dimension assumed to vanish",
    "Broadcasting never removes a dimension: the result has as many dimensions as the larger operand, and a "
    "dimension of size 1 is stretched to the other side's size, not dropped.",
    "Write the two shapes right-aligned, one under the other, and apply the rules to each pair; or print "
    "(torch.zeros(100, 1) - torch.zeros(100)).shape.",
    BROADCASTING,
)
MISMATCH_RAISES = Mistake(
    "mismatched shapes assumed to raise",
    "Different shapes raise an error only when some pair of dimensions differs and neither of them is 1. Here every "
    "pair matches under the rules, so PyTorch computes a result without a word: that is why the lesson calls "
    "this pitfall silent.",
    "Write the two shapes right-aligned, one under the other, and apply the rules to each pair.",
    BROADCASTING,
)
VIEW_OF_NON_CONTIGUOUS = Mistake(
    "view used on a non-contiguous tensor",
    "view only gives the memory a tensor already has a new shape, so it works only on a contiguous tensor (laid out "
    "in row-major order). A transpose leaves x's memory as it was, so x.T is not contiguous: that is why the "
    "companion calls for .contiguous() after .transpose() and before .view().",
    "Print x.T.is_contiguous(), then try x.T.view(12) yourself.",
    VIEWS,
)
VIEW_AS_RESHAPE = Mistake(
    "view confused with reshape",
    "Copying when it has to is what reshape does. view never copies: it shares the tensor's memory under the new "
    "shape, and that is only possible for some layouts.",
    "Compare the companion's lines on .view() and .reshape(), then try x.T.view(12) yourself.",
    VIEWS,
)
GRAD_OVERWRITTEN = Mistake(
    "backward assumed to overwrite .grad",
    "backward() does not replace what is in x.grad: it adds the new gradient to it. The derivative of x² at 3 is "
    "the same on every call, and nothing clears .grad between the calls.",
    "Run the lesson's three-call loop and print x.grad after each call.",
    ACCUMULATION,
)
BACKWARD_ONCE_ONLY = Mistake(
    "backward assumed to run once only",
    "Each pass of the loop computes y = x ** 2 afresh, and so records a new graph: backward() may run on every "
    "pass. What the repeated calls change is the content of x.grad.",
    "Run the lesson's three-call loop and print x.grad after each call.",
    ACCUMULATION,
)
FORWARD_MODE_AS_FINITE_DIFFERENCES = Mistake(
    "forward mode taken for finite differences",
    "Forward and reverse mode are both automatic differentiation: both apply the chain rule to recorded "
    "operations and give exact derivatives. Estimates like (f(x+h) − f(x−h)) / 2h are the numerical option, a "
    "different method.",
    "Re-read the three options for computing gradients in the companion, and the one reason it gives for "
    "choosing between the two modes.",
    AUTODIFF,
)
REVERSE_MODE_WITHOUT_GRAPH = Mistake(
    "reverse mode thought to record no graph",
    "Reverse mode cannot work without the graph: every operation logs itself on the way forward, and backward() "
    "walks that log from the loss back to the inputs.",
    "Re-read the companion's \"Key Takeaways\" on what reverse-mode autograd does.",
    AUTODIFF,
)
REVERSE_MODE_AS_DYNAMIC_GRAPH = Mistake(
    "reverse mode confused with dynamic graphs",
    "Loops and if statements work in a PyTorch model because its graph is built as Python runs (define by run). "
    "That is a choice about when the graph is made, not about the direction the chain rule is applied in.",
    "Re-read why the companion says reverse mode is right for deep learning: it is about the numbers of inputs "
    "and outputs.",
    DYNAMIC,
)
DETACH_AS_NO_GRAD = Mistake(
    "detach taken for no_grad",
    "detach() cuts one tensor from the graph after it has been computed, so by then the whole forward pass has "
    "been recorded. The companion names another of its three tools for inference and validation.",
    "Re-read what each tool of the companion's triangle does, and which one it gives for evaluation.",
    TRIANGLE,
)
DATA_TO_STOP_TRACKING = Mistake(
    ".data used to stop tracking",
    ".data reaches the storage behind autograd's back: what is done through it is invisible to autograd, and the "
    "companion calls it almost always the wrong choice.",
    "Re-read the companion's triangle: of its three tools, one is never the answer.",
    TRIANGLE,
)
NUMPY_OF_TRACKED_TENSOR = Mistake(
    ".numpy() assumed to work on a tracked tensor",
    "A NumPy array cannot hold the autograd graph, so PyTorch refuses to turn a tensor that requires grad into "
    "one: it neither makes the array quietly nor changes the tensor.",
    "Run torch.zeros(3, requires_grad=True).numpy() and read the message.",
    NUMPY,
)
LARGER_RATE_IS_FASTER = Mistake(
    "larger learning rate assumed faster",
    "A bigger step helps only while it does not carry the parameters past the bottom of the valley. Steps 11 "
    "times the lesson's are far too large for this loss.",
    "Run the worked example's loop with lr = 1.1 and print the loss and w of the first five steps.",
    RATE,
)
OVERSHOOT_SETTLES = Mistake(
    "overshooting assumed to settle",
    "A wobble dies down only when each overshoot is smaller than the one before, and whether it is depends on "
    "how large the step is: exercise 1 of \"Try it yourself\" asks you to watch what a step of 1.1 does.",
    "Run the worked example's loop with lr = 1.1 and print the loss and w of the first five steps.",
    RATE,
)
TOO_FEW_STEPS = Mistake(
    "remaining loss taken for too few steps",
    "The printout shows the loss, w and b unchanged from step 40 to step 100: the descent has already stopped at "
    "the best line, so more steps cannot lower the loss.",
    "Read the lesson's explanation of the printout, the third point under \"Reading the output\".",
    READING,
)
ROUNDING_BLAMED = Mistake(
    "remaining loss blamed on rounding",
    "Rounding moves only the last decimals of a loss (the lesson says so of other versions and hardware); it "
    "cannot hold a loss at 0.06. What remains comes from the data, not from the arithmetic.",
    "Read the lesson's explanation of the printout, the third point under \"Reading the output\".",
    READING,
)
RATE_BLAMED = Mistake(
    "remaining loss blamed on the learning rate",
    "At lr 0.1 the descent settles: w and b stop changing from step 40 on, so it sits at the minimum of the loss, "
    "and no learning rate gets below the minimum.",
    "Read the lesson's explanation of the printout, the third point under \"Reading the output\".",
    READING,
)
FORM_LETTERS_REUSED = Mistake(
    "form A letters reused for form B",
    "answers(\"B\") gave the same letters as answers(\"A\"), but form B lists each question's options in another "
    "order, so the same letters point at other options.",
    "Answer form B from what its options say, in the \"Form B\" part of the docstring, not from form A's letters.",
    f'the "Form B" part of the docstring in {STUB}',
)
MISTAKES = [ARANGE_AS_FLOAT32, NUMPY_FLOAT64_EXPECTED, INT32_AS_DEFAULT, DTYPES_CONVERT_THEMSELVES,
            ALIGNED_FROM_THE_LEFT, SIZE_ONE_VANISHES, MISMATCH_RAISES, VIEW_OF_NON_CONTIGUOUS, VIEW_AS_RESHAPE,
            GRAD_OVERWRITTEN, BACKWARD_ONCE_ONLY, FORWARD_MODE_AS_FINITE_DIFFERENCES, REVERSE_MODE_WITHOUT_GRAPH,
            REVERSE_MODE_AS_DYNAMIC_GRAPH, DETACH_AS_NO_GRAD, DATA_TO_STOP_TRACKING, NUMPY_OF_TRACKED_TENSOR,
            LARGER_RATE_IS_FASTER, OVERSHOOT_SETTLES, TOO_FEW_STEPS, ROUNDING_BLAMED, RATE_BLAMED,
            FORM_LETTERS_REUSED]

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


def _chosen(returned: Returned, questions: tuple[int, ...]) -> dict[int, str]:
    """The letters the student chose for `questions`, lower-cased; fails naming every missing or invalid one."""
    __tracebackhide__ = True
    value = returned.value
    if type(value) is not dict:
        fail("answers must return a dict from question numbers to letters.", call=returned.call,
             got=describe(value), expected=FORMAT, hint="Return a dict literal: {1: ..., 2: ..., ..., 10: ...}.",
             section=f"the docstring of answers in {STUB}")
    chosen, problems = {}, []
    for question in questions:
        letters = ", ".join(OPTIONS[question])
        answer = value.get(question)
        if question not in value:
            near = [key for key in value if type(key) is str and key.strip().lower().lstrip("q") == str(question)]
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


@expected
def form_b_order() -> dict[int, str]:
    """Form B's option i is form A's option form_b_order()[q][i]: the hidden check's key, never released."""
    return dict(FORM_B_ORDER)


def _as_form_a(chosen: dict[int, str]) -> dict[int, str]:
    """Letters of form B as the same options' letters in form A."""
    order = form_b_order()
    return {q: order[q]["abcd".index(letter)] for q, letter in chosen.items()}


def _check_form_a(student: Student, questions: tuple[int, ...]) -> None:
    """The questions answered right in form A; in the twin run, in form B (the same options, reordered)."""
    __tracebackhide__ = True
    form = "B" if twin() else "A"
    returned = student.call("answers", *(["B"] if twin() else []), shown_as='answers("B")' if twin() else "answers()")
    chosen = _chosen(returned, questions)
    wrong = _wrong(_as_form_a(chosen) if twin() else chosen)
    if wrong and twin():
        _fail_if_form_a_letters(student, returned, f"{len(wrong)} of questions {' and '.join(map(str, questions))}")
    if wrong:
        _fail_wrong(returned, wrong, chosen, form)


def _fail_if_form_a_letters(student: Student, returned: Returned, how_many: str) -> None:
    """Form B answered wrong with the very letters of form A: say that, rather than each option's misconception."""
    __tracebackhide__ = True
    form_a = student.call("answers", shown_as="answers()", allow_raise=True)
    if form_a.error is None and form_a.value == returned.value:
        fail(f'Form B: {how_many} are not answered right, and answers("B") gives the same letters as answers().',
             call=returned.call, got=describe(returned.value), mistake=FORM_LETTERS_REUSED.name,
             meaning=FORM_LETTERS_REUSED.explanation, hint=FORM_LETTERS_REUSED.hint,
             section=FORM_LETTERS_REUSED.section)


# ---------------------------------------------------------------- public checks

@check
def test_tensor_dtypes(student: Student) -> None:
    _check_form_a(student, (1, 2))


@check
def test_shapes_and_views(student: Student) -> None:
    _check_form_a(student, (3, 4))


@check
def test_autograd(student: Student) -> None:
    _check_form_a(student, (5, 6))


@check
def test_stopping_tracking(student: Student) -> None:
    _check_form_a(student, (7, 8))


@check
def test_training_loop(student: Student) -> None:
    _check_form_a(student, (9, 10))


# ---------------------------------------------------------------- hidden checks

@check
def test_form_b(student: Student) -> None:
    returned = student.call("answers", "B", shown_as='answers("B")')
    chosen = _chosen(returned, tuple(OPTIONS))
    wrong = _wrong(_as_form_a(chosen))
    if not wrong:
        return
    _fail_if_form_a_letters(student, returned, f"{len(wrong)} of the 10 questions")
    _fail_wrong(returned, wrong, chosen, "B")
