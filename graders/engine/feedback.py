"""The one shape of every failure message: what was called, what came back, what was
expected, what it most likely means, one hint, and where in the lesson to look."""

from __future__ import annotations

import contextlib
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import NoReturn

from course_config import LIMITS
from graders.engine.plots import LossCurves

SHOWN_CHARS = int(LIMITS.shown_chars.value)
FIELD_CHARS = 12 * SHOWN_CHARS  # a part of a message that lists several values (e.g. one line per question)


def cut(text: str, limit: int = SHOWN_CHARS) -> str:
    """`text` as shown in feedback: at most `limit` characters, and the length when cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters in all)"


def shown_path(path: str) -> str:
    """A file the grader wrote, as feedback names it: relative to the working folder when it is
    inside it; its name alone when it sits in a temporary folder; else the path as it is."""
    target = Path(path)
    with contextlib.suppress(ValueError, OSError):
        return target.resolve().relative_to(Path.cwd().resolve()).as_posix()
    with contextlib.suppress(ValueError, OSError):
        target.resolve().relative_to(Path(tempfile.gettempdir()).resolve())
        return target.name
    return path


# What `got` is called: "returned" for a value; for code that stopped rather than returned, what it did instead
# (an exception, an import that failed: "raised"; a timeout, a breakpoint: "stopped"), never "returned".
_EXCEPTION = re.compile(r"^[A-Z]\w*(Error|Exception|Exit|Interrupt|Quit|Warning)(:|$)")


def got_label(got: str) -> str:
    """The label of a message's `got` part when the check named none: "raised" where it shows an exception."""
    return "raised" if _EXCEPTION.match(got) else "returned"


PRINTED_LINES = 12  # of a student's own print() output, shown under a failed check


def printed_text(text: str) -> str:
    """The student's print() output as feedback shows it: its first lines, and how many more."""
    lines = text.rstrip("\n").splitlines()
    shown = [cut(line) for line in lines[:PRINTED_LINES]]
    if len(lines) > PRINTED_LINES:
        shown.append(f"... ({len(lines) - PRINTED_LINES} more lines)")
    return "\n".join(shown)


@dataclass(frozen=True)
class Feedback:
    """Why a check failed, in parts that every front end can lay out its own way."""

    summary: str  # one sentence: what is wrong
    call: str = ""  # the call that was made, e.g. "f(x) with x = torch.linspace(0, 5, 50)"
    got: str = ""  # what it returned (or raised)
    got_as: str = ""  # the label of `got` ("stopped", "found"); by default "raised" for an exception, else "returned"
    changed: str = ""  # an argument the call changed, as it was afterwards
    expected: str = ""  # what the reference gives on the same input
    meaning: str = ""  # what this most likely means: the named mistake's explanation
    hint: str = ""  # one thing to try
    section: str = ""  # where in the lesson to look
    mistake: str | None = None  # the catalogue name of the mistake, when one was recognised
    concept: str = ""  # the lesson idea that mistake breaks (course_config.CONCEPTS); never part of text()
    not_implemented: bool = False  # the student has not started this function yet
    files: tuple[str, ...] = field(default_factory=tuple)  # e.g. a plot written for this failure
    pictures: tuple[LossCurves, ...] = ()  # plots to draw into `files` if the session shows this failure in full
    printed: str = ""  # what the student's own print() calls wrote during the check
    plots_below: bool = False  # the front end shows `files` under the message (a notebook): name no file
    cause: str = ""  # a cause that fails several checks at once (the import, one function's timeout): told once
    error: str = ""  # what the student's code raised, "function: Type: message": one exception is told once
    # It failed on a value it needs before it can judge its own property (engine/causes.py, needs_value): where an
    # earlier check failed for the same cause, it says it was not judged and points there.
    needs_value: bool = False
    # Its meaning and hint speak of the student's code alone (a changed default, a single edit of the reference), never
    # of a check's inputs or values: a hidden check may show them beside the mistake's name.
    about_the_code: bool = False
    # The meaning in words that name no value of the inputs (Mistake.without_values): a hidden check shows it.
    meaning_without_values: str = ""
    # What the named fact measured (Mistake.measured), so that the code can be read against it.
    measured: tuple[str, ...] = ()

    def text(self) -> str:
        # Every part is cut to a readable size: a student's value or message may be megabytes.
        lines = [cut(self.summary, FIELD_CHARS)]
        for label, value in (("called", self.call), (self.got_as or got_label(self.got), self.got),
                             ("changed", self.changed), ("expected", self.expected)):
            if value:
                lines.append(_labelled(label, cut(value, FIELD_CHARS)))
        if self.mistake:
            lines.append(_labelled("mistake", f"{self.mistake}. {self.meaning}".strip()))
        elif self.meaning:
            lines.append(_labelled("meaning", cut(self.meaning, FIELD_CHARS)))
        if self.hint:
            lines.append(_labelled("hint", cut(self.hint, FIELD_CHARS)))
        if self.plots_below and self.files:  # the student has no such file: the picture is under the feedback
            lines.append(_labelled("see", "the plot below" if len(self.files) == 1 else "the plots below"))
        for path in () if self.plots_below else self.files:
            lines.append(_labelled("see", shown_path(path)))
        if self.printed:
            lines.append(_labelled("printed", printed_text(self.printed)))
        if self.section:
            lines.append(_labelled("lesson", self.section))
        return "\n".join(lines)


def _labelled(label: str, value: str) -> str:
    indent = " " * 12
    first, *rest = value.splitlines() or [""]
    return f"  {label + ':':<10}{first}" + "".join(f"\n{indent}{line}" for line in rest)


class CheckFailed(AssertionError):
    """Raised by a check; pytest shows `feedback.text()` instead of a traceback into the grader."""

    def __init__(self, feedback: Feedback, otherwise: object = None) -> None:
        super().__init__(feedback.text())
        self.feedback = feedback
        # A fact about the result (fail's `otherwise`, a Mistake) that the check's own name came before: named in its
        # place where the student's own facts rule that name out (registration.py's net).
        self.otherwise = otherwise


def _single_edit(parts: dict[str, object]) -> dict[str, object]:
    """A value no catalogued mistake names, named by a default the student changed that the check's calls relied on
    (graders/engine/changed_defaults.py), or by the one family of the reference's single edits that gives it on
    every input of the check, when there is one (graders/engine/single_edits.py): the edit in words, never code."""
    # A changed default first: where a call relied on it, no edit of the reference's body is the cause.
    from graders.engine import changed_defaults, single_edits  # import torch: only once a value is wrong

    try:
        found = changed_defaults.explain() or single_edits.explain()
    except Exception:  # noqa: BLE001 - an explanation is extra: an answer it cannot handle keeps the check's own words
        return parts
    if found is None:
        return parts
    meaning = f"{found.meaning} {parts['meaning']}" if parts.get("meaning") else found.meaning
    # The edit's own hint: the check's may ask for what the code already does (it was written for any wrong value).
    return {**parts, "mistake": found.name, "meaning": meaning, "hint": found.hint,
            "about_the_code": not parts.get("meaning")}


def fail(summary: str, **parts: object) -> NoReturn:
    """Fail the current check with a message in the standard shape. `mistake` may be a named mistake
    (graders/engine/mistakes.py): its name, explanation, hint, section and concept fill the parts not given.
    `otherwise`: a mistake named only where neither the check nor a single edit names one (a fact about the
    result, such as its dtype, that holds whatever the cause)."""
    __tracebackhide__ = True
    otherwise = parts.pop("otherwise", None)
    named = parts.get("mistake")
    if named is None and parts.get("got") and not parts.get("error") and not parts.get("cause"):
        parts = _single_edit(parts)
    if parts.get("mistake") is None and otherwise is not None:
        # Its own meaning; a hint or section the check gives for this very property stays, and an empty one is
        # filled from the mistake.
        parts = {key: value for key, value in parts.items()
                 if key != "meaning" and not (key in ("hint", "section") and not value)}
        named = parts["mistake"] = otherwise
    if named is not None and not isinstance(named, str):  # a Mistake (not imported here: it imports this module)
        if "meaning" not in parts:  # the words without values go with the mistake's own meaning only
            parts["meaning_without_values"] = named.without_values  # type: ignore[attr-defined]
            parts["measured"] = named.measured  # type: ignore[attr-defined]
        parts = {"meaning": named.explanation, "hint": named.hint, "section": named.section,  # type: ignore[attr-defined]
                 "concept": named.concept, **parts,  # type: ignore[attr-defined]
                 "mistake": named.name}  # type: ignore[attr-defined]
    raise CheckFailed(Feedback(summary, **parts),  # type: ignore[arg-type]
                      otherwise=otherwise if otherwise is not None and named is not otherwise else None)
