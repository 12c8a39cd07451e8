"""A check that failed with feedback gets a report without a traceback (graders/engine/failure_reports.py): its text
is the feedback's, made without reading the source of any frame; any other failure is left to pytest's own report."""

from __future__ import annotations

import pytest

from graders.engine.failure_reports import pytest_runtest_makereport
from graders.engine.feedback import fail


def test_a_check_that_failed_with_feedback_is_reported_by_its_feedback_alone(pytester: pytest.Pytester) -> None:
    item = pytester.getitem("def test_func():\n    pass\n")
    call = pytest.CallInfo.from_call(lambda: fail("f: wrong.", call="f(1)", got="2", expected="3"), "call")
    report = pytest_runtest_makereport(item, call)
    assert report is not None and report.failed and report.when == "call" and report.nodeid == item.nodeid
    assert report.longrepr == call.excinfo.value.feedback.text()
    assert report.longrepr.startswith("f: wrong.") and "Traceback" not in report.longrepr


def test_any_other_outcome_is_left_to_pytest(pytester: pytest.Pytester) -> None:
    item = pytester.getitem("def test_func():\n    pass\n")
    assert pytest_runtest_makereport(item, pytest.CallInfo.from_call(lambda: 1 / 0, "call")) is None
    assert pytest_runtest_makereport(item, pytest.CallInfo.from_call(lambda: None, "call")) is None
