"""What GitHub Classroom's workflow gets (graders/frontends/classroom.py): one `<runner>=<base64 JSON>` line per
exercise, each decoding to the runner result platforms.py builds, written to $GITHUB_OUTPUT when it is set. The
workflow run end to end in a handout repository is test_handout.py's."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import STUBS
from graders.engine.results import SubmissionResult
from graders.frontends.classroom import payload_lines
from graders.frontends.platforms import classroom_runners

ROOT = Path(__file__).resolve().parents[2]


def test_each_line_is_a_runner_id_and_its_result_in_base64_json() -> None:
    result = SubmissionResult.from_dict({
        "submission": "exercises", "lesson": 1, "score": 1.0, "max_score": 1.0, "trusted": True, "complete": True,
        "confined": True, "confinement": "", "integrity": [],
        "exercises": [{"slug": "grad_accumulation", "score": 1.0, "max_score": 1.0, "checks": [
            {"id": "sums", "points": 1.0, "score": 1.0, "passed": True, "hidden": False, "message": ""}]}]})
    lines = payload_lines(result)
    decoded = {}
    for line in lines:
        runner, data = line.split("=", 1)
        decoded[runner] = json.loads(base64.b64decode(data, validate=True))
    assert decoded == classroom_runners(result) and list(decoded) == ["gradaccumulation"]


def test_the_command_appends_one_line_per_exercise_to_github_output(tmp_path: Path) -> None:
    output = tmp_path / "github_output"
    output.write_text("earlier=step\n")  # a step before ours wrote here: kept
    environment = {**os.environ, "GITHUB_OUTPUT": str(output)}
    run = subprocess.run([sys.executable, "-m", "graders.frontends.classroom", str(STUBS / "lesson01")],
                         cwd=ROOT, env=environment, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    lines = output.read_text().splitlines()
    assert lines[0] == "earlier=step" and len(lines) == 1 + len({line.split("=", 1)[0] for line in lines[1:]})
    runners = {line.split("=", 1)[0]: json.loads(base64.b64decode(line.split("=", 1)[1])) for line in lines[1:]}
    assert "views" in runners and all(r["status"] == "fail" for r in runners.values()), "untouched stubs pass nothing"
