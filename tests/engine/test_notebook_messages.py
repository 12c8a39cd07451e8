"""Messages for a notebook's answer cells (issue 25): they name the answer cell and its lines, and the plots
shown below the feedback, never a file the student does not have; no warning blamed on the grader's files
reaches a student."""

from __future__ import annotations

from pathlib import Path

from conftest import ROOT
from graders.engine.printed import without_foreign_warnings
from graders.frontends.nbgrader.grading_server import GradingServer
from mistake_catalogue import submission

SLUG = "sin_exp_derivative"
REFERENCE = (ROOT / "reference" / "lesson01" / f"{SLUG}.py").read_text()
RAISES = REFERENCE.replace("    return leaf.grad.detach()", "    kept = {}\n    return kept['grad']")


def test_the_grading_server_grades_answers_as_answer_cells(tmp_path: Path) -> None:
    for root in (None, ROOT):
        server = GradingServer(tmp_path, root)
        args = server.pytest_args("lesson01", SLUG, tmp_path / "s", tmp_path / "r.json", tmp_path / "p")
        assert "--answer-cells" in args, args
        server.close()


def test_an_error_in_an_answer_cell_names_the_cell_and_its_line_not_a_file(grade) -> None:
    graded = grade({SLUG: RAISES}, "--answer-cells")
    line = RAISES.splitlines().index("    return kept['grad']") + 1
    message = graded.checks(SLUG)["autograd_derivative_on_lesson_grid"]["message"]
    assert f"answer cell, line {line}, in autograd_derivative: return kept['grad']" in message, message
    assert ".py" not in message, message
    as_file = grade({SLUG: RAISES}).checks(SLUG)["autograd_derivative_on_lesson_grid"]["message"]
    assert f"{SLUG}.py, line {line}" in as_file, as_file  # pytest exercises/ still names the file


def test_a_plot_in_a_notebook_is_the_plot_below_not_its_path(grade, tmp_path: Path) -> None:
    graded = grade({"learning_rate": submission("learning_rate", "never_zeroed")}, "--answer-cells",
                   "--plots", str(tmp_path / "plots"))
    check = graded.checks("learning_rate")["lesson_run_at_lr_0_1"]
    assert check["files"] and "see:      the plot below" in check["message"], check["message"]
    assert ".png" not in check["message"] and "learning_rate.py" not in check["message"], check["message"]


def test_warnings_blamed_on_other_files_than_the_students_are_left_out() -> None:
    printed = ("lesson01/views.py:3: UserWarning: the student's own\n  y = torch.tensor(x)\n"
               "/srv/course/graders/sandbox/tracing.py:55: UserWarning: raised by the grader's code\n"
               "  return func(*args, **(kwargs or {}))\n"
               "/usr/lib/python3/site-packages/torch/_tensor.py:9: DeprecationWarning: torch's own\n"
               "  warnings.warn(message)\n"
               "step 1\n  indented print of the student's\n")
    shown = without_foreign_warnings(printed, "lesson01/views.py")
    assert shown == ("lesson01/views.py:3: UserWarning: the student's own\n  y = torch.tensor(x)\n"
                     "step 1\n  indented print of the student's\n"), shown
