"""What students see of what their code wrote: their own prints and warnings, not ours.

A warning Python prints names the file it blames, `path:line: Category: message`, then that line's source.
One blamed on the student's file is theirs (a deprecated call they made). One blamed on any other file
was raised by the code around theirs (the worker's tracing of torch calls, a check's driver, torch's own
internals): the student cannot act on it, and its path is the grader's, so it is left out.
"""

from __future__ import annotations

import re

_WARNING = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<category>[A-Za-z_][\w.]*(?:Warning|Error)): ")


def without_foreign_warnings(text: str, student_file: str) -> str:
    """`text` without the warnings blamed on a file other than `student_file` (as the text names it)."""
    if "Warning: " not in text:  # the common case costs one search
        return text
    kept: list[str] = []
    dropping = False
    for line in text.splitlines(keepends=True):
        found = _WARNING.match(line)
        if found:
            dropping = found["file"] != student_file
        elif dropping and line.startswith("  "):  # the source line Python prints under a warning
            continue
        else:
            dropping = False
        if not dropping:
            kept.append(line)
    return "".join(kept)
