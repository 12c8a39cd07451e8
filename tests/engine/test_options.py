"""The plugin's options and ini settings (graders/engine/options.py): each is declared with its help text; an option
or its ini key turns a setting on; a student's own run keeps its expected values between runs and no other kind of
run does; the ini's replay file is found from the ini file's folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from graders.engine import options


def test_every_option_is_declared_with_its_help_text(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess("--help")
    text = " ".join(" ".join(result.stdout.lines).split())
    for flag, help_text in (("--submission=DIR", options.SUBMISSION_HELP), ("--in-process", options.IN_PROCESS_HELP),
                            ("--call-timeout=SECONDS", options.CALL_SECONDS_HELP),
                            ("--sandbox-without=STEPS", options.SANDBOX_WITHOUT_HELP)):
        assert flag in text and " ".join(help_text.split())[:40] in text, flag


def test_in_process_is_set_by_its_option_or_its_ini_key(pytester: pytest.Pytester) -> None:
    assert not options.in_process(pytester.parseconfig())
    assert options.in_process(pytester.parseconfig("--in-process"))
    pytester.makeini("[pytest]\ngraders_in_process = true\n")
    assert options.in_process(pytester.parseconfig())


@pytest.mark.parametrize("args", [("--no-expected-cache",), ("--record-expected", "r.json"),
                                  ("--expected-cache", "c.json"), ("--replay-expected", "r.json"), ("--in-process",)])
def test_only_a_students_own_run_keeps_its_expected_values(pytester: pytest.Pytester, args: tuple[str, ...]) -> None:
    assert options.kept_values_allowed(pytester.parseconfig())
    assert not options.kept_values_allowed(pytester.parseconfig(*args))


def test_the_ini_replay_file_is_found_from_the_ini_files_folder(pytester: pytest.Pytester) -> None:
    assert options.replay_file(pytester.parseconfig()) is None
    ini = pytester.makeini("[pytest]\ngraders_replay = bundle/expected.json\n")
    assert options.replay_file(pytester.parseconfig()) == Path(ini).parent / "bundle" / "expected.json"
    assert options.replay_file(pytester.parseconfig("--replay-expected", "given.json")) == Path("given.json")
