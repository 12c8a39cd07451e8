"""What a long batch shows while it runs: a progress bar on a terminal, one line per student elsewhere.

The bar (tqdm) counts students done out of the total, with its estimate of the time left,
and says how many could not be graded and how many hand-ins had a problem. Where the
output is not a terminal (a log, CI), each student gets one line instead, as it finishes.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from graders.frontends.grade.store import StudentRecord


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total = total
        self.stream = stream or sys.stderr
        self.count = 0
        self.failed = 0
        self.problems = 0
        self.bar = None
        if self.stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="student", file=self.stream, dynamic_ncols=True)

    def done(self, student: str, record: StudentRecord, term: str = "") -> None:
        """One student graded; `term` says what the term made of the checks' score, if it changed it."""
        self.count += 1
        self.failed += bool(record.error)
        self.problems += bool(record.problems)
        if self.bar is not None:
            self.bar.set_postfix(failed=self.failed, problems=self.problems, refresh=False)
            self.bar.update(1)
            return
        width = len(str(self.total))
        checks = f"{record.score:g}"
        state = f"not graded: {record.error}" if record.error else (
            f"{term} ({checks} from the checks)" if term else f"{checks} / {record.max_score:g}")
        count = len(record.problems)
        notes = f" ({count} problem{'' if count == 1 else 's'})" if count else ""
        print(f"[{self.count:>{width}}/{self.total}] {student}: {state}{notes}", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
