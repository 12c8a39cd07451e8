"""A run's settings read from its command line (graders/engine/run_settings.py): a bad value stops the run before any
grading with a usage error that names the option, the value and what it should be; a good one reaches the budget."""

from __future__ import annotations

import pytest

from conftest import STUBS

SLUG = "sin_exp_derivative"


@pytest.mark.parametrize("option, value, said", [
    ("--call-timeout", "soon", "*--call-timeout 'soon': give a number of seconds, e.g. 5*"),
    ("--exercise-seconds", "0", "*--exercise-seconds '0': the number of seconds must be above 0*"),
    ("--submission-seconds", "-3", "*--submission-seconds '-3': the number of seconds must be above 0*"),
    ("--submission", "nowhere", "*nowhere*"),
])
def test_a_bad_setting_is_a_usage_error_naming_the_option_and_its_value(pytester: pytest.Pytester, option: str,
                                                                       value: str, said: str) -> None:
    result = pytester.runpytest_inprocess(str(STUBS / "lesson01" / f"{SLUG}.py"), option, value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([said])


def test_an_unknown_sandbox_step_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_inprocess(str(STUBS / "lesson01" / f"{SLUG}.py"),
                                          "--sandbox-without", "landlok")
    result.stderr.fnmatch_lines(["*--sandbox-without 'landlok': unknown step landlok*"])
