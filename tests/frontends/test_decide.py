"""`python -m graders decide` (graders/frontends/decide.py): each decision written to the ledger with who and when,
what is no decision refused with the reason, and the ledger shown back."""

from __future__ import annotations

import csv
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from graders.frontends.grade.term.decisions import read_ledger


def _decide(path: Path, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "graders", "decide", str(path), *arguments, "--by", "dr.lee"],
                          capture_output=True, text=True)


def test_decide_writes_an_audited_ledger_and_refuses_what_is_not_a_decision(tmp_path: Path) -> None:
    path = tmp_path / "decisions.csv"
    assert _decide(path, "alice", "override", "8.5", "--exercise", "micrograd", "--reason", "tolerance").returncode == 0
    assert _decide(path, "alice", "extension", "+2 days", "--reason", "medical note").returncode == 0
    for arguments, said in ((("bob", "override", "lots", "--reason", "r"), "not a number"),
                            (("bob", "excuse", "yes"), "`reason` is empty"),
                            (("bob", "override", "3", "--exercise", "nope", "--reason", "r"), "not one of this lesson"),
                            (("bob", "promote", "yes", "--reason", "r"), "not one of override"),
                            (("bob", "extension", "tomorrow", "--reason", "r"), "+N days")):
        run = _decide(path, *arguments)
        assert run.returncode != 0 and said in run.stderr, run.stderr
    rows = list(csv.DictReader(path.open()))
    assert [(r["who"], r["student"], r["action"]) for r in rows] == [("dr.lee", "alice", "override"),
                                                                     ("dr.lee", "alice", "extension")]
    assert rows[1]["value"] == "'+2 days"  # a spreadsheet would take +2 days for a formula
    assert [d.value for d in read_ledger(path)] == ["8.5", "+2 days"]
    assert all(datetime.fromisoformat(r["when"]).tzinfo is not None for r in rows)
    for arguments, said in ((("bob", "override", "nan", "--reason", "r"), "from 0"),
                            (("bob", "override", "11", "--exercise", "micrograd", "--reason", "r"), "up to 10"),
                            (("bob", "override", "850", "--reason", "r"), "up to 100"),
                            (("bob", "extension", "+1e20 days", "--reason", "r"), "from 0 to 366"),
                            (("bob", "extension", "+-3 days", "--reason", "r"), "from 0 to 366")):
        run = _decide(path, *arguments)
        assert run.returncode != 0 and said in run.stderr, (arguments, run.stderr)
    shown = subprocess.run([sys.executable, "-m", "graders", "decide", str(path), "--show"], capture_output=True,
                           text=True)
    assert "override on micrograd: 8.5" in shown.stdout and "2 decisions" in shown.stdout
