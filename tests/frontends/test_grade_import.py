"""What every LMS's grade import shares (graders/frontends/grade/lms/grade_import.py): scores with at most two
decimals, and one number per student or a refusal that names them."""

from __future__ import annotations

import math

import pytest

from graders.frontends.grade.lms import grade_import
from graders.frontends.grade.lms.blackboard import blackboard_csv
from graders.frontends.grade.lms.canvas import canvas_csv
from graders.frontends.grade.lms.grade_import import LmsExportError, format_score
from graders.frontends.grade.lms.moodle import moodle_grades_csv, moodle_worksheet_csv
from lms_rows import ALICE, CLASS, standing_of

WRITERS = [canvas_csv, moodle_worksheet_csv, moodle_grades_csv, blackboard_csv]


@pytest.mark.parametrize("value, text", [(7.5, "7.5"), (7.0, "7"), (7.456, "7.46"), (0.1 + 0.2, "0.3"),
                                         (-0.0, "0"), (10, "10"), (0.05, "0.05"), (123.4, "123.4")])
def test_a_score_has_at_most_two_decimals(value, text):
    assert format_score(value) == text


@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_refuses_two_standings_for_one_student(writer):
    with pytest.raises(LmsExportError) as error:
        writer([CLASS[0], CLASS[0]], "Lab 1", 10.0)
    assert str(error.value) == grade_import.DUPLICATE_STUDENT.format(student="101", count=2)


@pytest.mark.parametrize("writer", WRITERS)
def test_a_writer_refuses_a_final_that_is_not_a_number(writer):
    with pytest.raises(LmsExportError) as error:
        writer([standing_of("101", math.nan, ALICE)], "Lab 1", 10.0)
    assert str(error.value) == grade_import.NOT_A_SCORE.format(student="101", score=math.nan)
