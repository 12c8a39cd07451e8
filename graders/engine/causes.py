"""One cause, one message: the first failed check of an exercise explains a cause in full, and every
later check of that exercise failing for the same cause says "same cause as above" in short, in every
front end (the terminal, the JSON, the notebooks' feedback, the HTML pages), which all read the result
model built from this.

A cause is what the student must fix once to fix all those checks: a named mistake, one exception
(its type and message) raised by one function, an import that failed, one function's timeout.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graders.engine.feedback import FIELD_CHARS, Feedback, cut

SAME_CAUSE = "same cause as above{named}."


def cause_of(feedback: Feedback) -> str:
    """What a failure is told apart by; "" when it has nothing that another check could share."""
    return (feedback.cause or feedback.mistake or feedback.error or feedback.meaning
            or (feedback.summary + feedback.got if not feedback.call else ""))


def said_again(feedback: Feedback) -> str:
    """A repeated cause in short: the check's own headline, then a pointer to the explanation above."""
    named = f" ({feedback.mistake})" if feedback.mistake else ""
    return f"{cut(feedback.summary, FIELD_CHARS)}\n  {SAME_CAUSE.format(named=named)}"


@dataclass
class Causes:
    """Per exercise, each cause explained so far and the id of the check that explained it."""

    first: dict[str, dict[str, str]] = field(default_factory=dict)

    def explained_by(self, slug: str, cause: str) -> str:
        """The id of the check of `slug` that explained `cause` already, or ""."""
        return self.first.get(slug, {}).get(cause, "") if cause else ""

    def explain(self, slug: str, cause: str, check_id: str) -> None:
        """Note that `check_id` showed `cause` in full (a hidden check shown by its outcome does not)."""
        if cause:
            self.first.setdefault(slug, {}).setdefault(cause, check_id)
