"""`python -m graders VERB` (graders/frontends/cli.py): a thin command line whose defaults are the verbs' own
signatures', which refuses options that do not go together before anything is graded, and whose exit status says
whether a verb failed. Each verb's work is tested with its module."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from graders.frontends import cli, decide, new_exercise, release
from graders.frontends.grade.run import main as batch
from graders.frontends.nbgrader import build


def _default(function: object, name: str) -> object:
    return inspect.signature(function).parameters[name].default


def test_every_default_is_the_one_its_verbs_signature_gives() -> None:
    parse = cli.parser().parse_args
    made = parse(["nbgrader", "build", "course"])
    assert (made.lesson, made.course_id, made.exercise_seconds, made.prove) == (
        _default(build.main, "lesson"), _default(build.main, "course_id"), _default(build.main, "exercise_seconds"),
        True)
    assert parse(["grade", "class", "--out", "results"]).lesson == _default(batch.main, "lesson")
    assert parse(["release", "handout"]).lesson == _default(release.main, "lesson")
    assert parse(["decide", "decisions.csv"]).lesson == _default(decide.main, "lesson")
    assert parse(["new", "lesson01", "slug", "--title", "t"]).points == _default(new_exercise.scaffold, "points")


@pytest.mark.parametrize("options, said", [
    (["-j", "0"], "-j 0: give at least 1 worker"),
    (["--tls-cert", "c.pem"], "--tls-ca-file, --tls-cert and --tls-key go with --scheduler tls://..."),
    (["--scheduler", "tcp://127.0.0.1:1", "--dashboard"], "a --scheduler's cluster serves its own"),
    (["--scheduler", "tcp://127.0.0.1:1", "-j", "2"], "with --scheduler, the cluster's own workers grade"),
    (["--scheduler", "tcp://127.0.0.1:1", "--tls-key", "k.pem"], "needs --tls-ca-file, --tls-cert and --tls-key"),
    (["--scheduler", "tls://127.0.0.1:1"], "--scheduler tls://127.0.0.1:1: give --tls-ca-file, --tls-cert"),
])
def test_options_that_do_not_go_together_are_refused_before_grading(options: list[str], said: str,
                                                                     tmp_path: Path) -> None:
    arguments = cli.parser().parse_args(["grade", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out"),
                                         *options])
    with pytest.raises(SystemExit) as stop:
        arguments.run(arguments)  # the cluster's options are read before the batch starts
    assert said in str(stop.value), stop.value
    assert not (tmp_path / "out").exists(), "nothing was written"


def test_a_verb_is_required_and_a_good_run_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        cli.main([])
    assert stop.value.code == 2 and "VERB" in capsys.readouterr().err
    assert cli.main(["config", "--exercise", "views"]) == 0
    assert capsys.readouterr().out.startswith("views: ")
