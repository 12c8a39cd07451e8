"""One cause, one message: the first failed check of an exercise explains a cause in full, and every
later check of that exercise failing for the same cause says "same cause as above" in short, in every
front end (the terminal, the JSON, the notebooks' feedback, the HTML pages), which all read the result
model built from this.

A cause is what the student must fix once to fix all those checks: a named mistake, one exception
(its type and message) raised by one function, an import that failed, one function's timeout.

A check fails for its own property. Where it must first have a right value to judge that property (x left
unchanged, losses returned as floats, how a right answer was made) and the value is wrong, it did not judge it:
a check of the same cause above is the one whose property is broken, and this one says "not judged" and points
there, whether it met the very same value (the same headline) or declared the value a precondition (needs_value).
"""

from __future__ import annotations

import contextlib
import dataclasses
from dataclasses import dataclass, field
from typing import Iterator

from graders.engine.feedback import FIELD_CHARS, CheckFailed, Feedback, cut

SAME_CAUSE = "same cause as above{named}."
# A later check that failed on the very value an earlier one failed on (one wrong derivative fails the checks that
# it is clean, that it uses autograd, ...): it stopped at that value, before what its own name says.
SAME_VALUE = ("not judged: fails because of the same cause as above{named}, see {first}: this check first needs the "
              "value that {first} found wrong, so it did not get to judge what its own name says.")


@contextlib.contextmanager
def needs_value() -> Iterator[None]:
    """Around the part of a check that judges a value its own property needs first (a wrong run before the types of
    its losses): a failure there is marked, so that where an earlier check failed for the same cause, this one says
    it was not judged and points there instead of seeming to fail its own property."""
    __tracebackhide__ = True
    try:
        yield
    except CheckFailed as failure:
        raise CheckFailed(dataclasses.replace(failure.feedback, needs_value=True), otherwise=failure.otherwise) from None


def cause_of(feedback: Feedback) -> str:
    """What a failure is told apart by; "" when it has nothing that another check could share. A wrong value no
    mistake names is shared only by the very same headline, call and value: the same comparison failing again
    (a wrong derivative fails the checks that it is clean and that it uses autograd before their own points)."""
    return (feedback.cause or feedback.mistake or feedback.error or feedback.meaning
            or "\n".join((feedback.summary, feedback.call or "", feedback.got or "")))


def said_again(feedback: Feedback, same_value_as: str = "") -> str:
    """A repeated cause in short: the check's own headline, then a pointer to the explanation above (and, where the
    check failed on the same value as `same_value_as`, that it did not judge its own point)."""
    named = f" ({feedback.mistake})" if feedback.mistake else ""
    pointer = SAME_VALUE.format(named=named, first=same_value_as) if same_value_as else SAME_CAUSE.format(named=named)
    return f"{cut(feedback.summary, FIELD_CHARS)}\n  {pointer}"


@dataclass
class Causes:
    """Per exercise, each cause explained so far and the id of the check that explained it."""

    first: dict[str, dict[str, str]] = field(default_factory=dict)
    headlines: dict[tuple[str, str], str] = field(default_factory=dict)  # (slug, cause) -> its first check's headline

    def explained_by(self, slug: str, cause: str) -> str:
        """The id of the check of `slug` that explained `cause` already, or ""."""
        return self.first.get(slug, {}).get(cause, "") if cause else ""

    def explain(self, slug: str, cause: str, check_id: str, headline: str = "") -> None:
        """Note that `check_id` showed `cause` in full (a hidden check shown by its outcome does not)."""
        if cause:
            self.first.setdefault(slug, {}).setdefault(cause, check_id)
            self.headlines.setdefault((slug, cause), headline)

    def same_value(self, slug: str, feedback: Feedback) -> str:
        """The check that failed for the cause that stopped this one before its own property, or "": the one that
        failed on the very value `feedback` fails on (same cause, same headline: the same comparison of the same
        call's value), or, where `feedback` failed on a value it needs first (needs_value), the one that explained
        the same cause. Not for an exception, an import or a timeout: those stop every check alike, and say so in
        their own words."""
        cause = cause_of(feedback)
        first = self.explained_by(slug, cause)
        if feedback.error or feedback.cause or not first:
            return ""
        return first if feedback.needs_value or self.headlines.get((slug, cause)) == feedback.summary else ""
