"""`python -m graders.frontends.classroom`: what GitHub Classroom's workflow runs in a student's repository.

It grades `exercises/` with the checks at hand (in a handout repository: the bundle's public
checks, against recorded values), then writes one runner result per exercise, base64-encoded
JSON as GitHub Classroom's autograding reporter reads it, to $GITHUB_OUTPUT (`<runner>=<data>`
lines; to stdout where the variable is not set). The workflow passes each to the reporter as
`<RUNNER>_RESULTS`. The handout's copy is `python -m nbchecks.frontends.classroom`.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Sequence

from graders.engine.results import SubmissionResult
from graders.frontends.platforms import classroom_runners


def payload_lines(result: SubmissionResult) -> list[str]:
    """The `<runner>=<base64 JSON>` lines for one result model."""
    return [f"{runner}={base64.b64encode(json.dumps(data).encode()).decode()}"
            for runner, data in classroom_runners(result).items()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m graders.frontends.classroom", description=__doc__.splitlines()[0])
    parser.add_argument("exercises", nargs="?", default="exercises", help="the folder to grade (default: %(default)s)")
    options = parser.parse_args(argv)
    import pytest

    with tempfile.TemporaryDirectory(prefix="classroom-") as scratch:
        result_file = Path(scratch) / "result.json"
        pytest.main([options.exercises, "--json", str(result_file), "-q", "-p", "no:cacheprovider"])
        if not result_file.is_file():
            print("graders.frontends.classroom: grading produced no result (see the output above)", file=sys.stderr)
            return 1
        lines = payload_lines(SubmissionResult.read(result_file))
    target = os.environ.get("GITHUB_OUTPUT")
    if target:
        with open(target, "a", encoding="utf-8") as output:
            output.write("".join(line + "\n" for line in lines))
    else:
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
