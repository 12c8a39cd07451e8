"""How much time a submission's code may take in all: per exercise, and for the whole submission.

A per-call limit alone lets a right answer that sleeps just under it, call after call, hold
the grader for half an hour. So every exercise has an allowance of wall-clock seconds
(`LIMITS.exercise_seconds`) inside the submission's (`LIMITS.submission_seconds`): each call
and each import spends from both, a call may take no longer than what is left, and once
either is spent the remaining checks score 0 with one message that says why.
"""

from __future__ import annotations

from dataclasses import dataclass

SPENT = ("Grading stopped here: the code of {what} had used its {seconds:g} s in all "
         "(course_config.LIMITS.{setting}), so this and the remaining checks score 0.")
SPENT_HINT = ("Each call should take well under a second: look for a loop that runs far longer than it needs "
              "to, or a sleep.")


@dataclass
class Allowance:
    """Seconds left for one part of the grading; an exercise's allowance sits inside its submission's."""

    seconds: float
    what: str  # "this exercise", "this submission": for messages
    setting: str  # the name of its limit in course_config.LIMITS
    within: "Allowance | None" = None
    spent: float = 0.0

    def left(self) -> float:
        mine = self.seconds - self.spent
        return min(mine, self.within.left()) if self.within is not None else mine

    def spend(self, seconds: float) -> None:
        self.spent += seconds
        if self.within is not None:
            self.within.spend(seconds)

    def used_up(self) -> "Allowance | None":
        """The allowance that has run out (the innermost first), or None."""
        if self.seconds - self.spent <= 0:
            return self
        return self.within.used_up() if self.within is not None else None

    def message(self) -> str:
        return SPENT.format(what=self.what, seconds=self.seconds, setting=self.setting)
