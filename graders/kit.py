"""The one door for check authors: everything a checks module (graders/<lesson>/<slug>/checks.py) imports
from the grader comes from here (torch, numpy and the standard library are its own to import), so that the
engine can change behind it.

    EXERCISE = exercise("lesson01", "my_slug")   its manifest: checks, points, seeds, tolerances
    check = checks_for("lesson01", EXERCISE.slug)
    @check
    def test_<id>(student: Student, reference: ModuleType) -> None:   a graded check (points from the manifest)
        got = student.call("fn", x, shown_as="fn(x) with x = ...")    the student's function, in their worker
        expect_tensor(got, reference.fn(x), rtol=..., atol=..., section=...)   compare; fail(...) explains

Also here: `@expected`, a decorator for functions of the grader that compute an expected value or a wrong
variant (their bodies stay out of student bundles, their results are recorded); `twin`, `twin_random`,
`twin_generator` (a public check's second run on fresh inputs, when the reference is live); `Mistake`,
`Suspect`, `collect_mistakes` and the matchers that name a mistake; `Meanwhile` (an expected value as costly as
the student's call, computed in the grader while the worker runs that call: `student.call(..., meanwhile=...)`);
`argument_changed` (did a call change its argument: use `student.call(..., return_args=True)`); `drawn`
(generated inputs); `recipe_drawn_otherwise` (the lesson's data recipe drawn in the other order or in float64); `recipe_drawn_point_by_point` (drawn one x and its noise at a time); `follows_the_recipes_law` (data of another generator: the recipe's law, not its numbers); `LossCurves` (a plot in the feedback); `origin`; and the code-evidence patterns of checks of
*how*.
"""

from __future__ import annotations

import course_config
from graders.engine.answer_facts import dtype_fact, none_fact, order_fact, scale_fact, shape_fact
from graders.engine.causes import needs_value
from graders.engine.changed_defaults import defaults_told
from graders.engine.collect import collect_mistakes
from graders.engine.compare import argument_changed, close, describe, number_problem, tensor_problem, values_problem
from graders.engine.drawing import distinct, drawn
from graders.engine.expect import (code_lines, expect_code_shows, expect_float_not_tensor, expect_number,
                                   expect_tensor, fail_with_mistake, seed_judged)
from graders.engine.feedback import CheckFailed, fail
from graders.engine.code_pitfalls import (code_ends_its_loop_at_once, list_of_one_object, pitfall_shown,
                                         set_order_relied_on, state_kept_between_calls)
from graders.engine.fresh import twin, twin_generator, twin_random
from graders.engine.mistakes import (DTYPE_DIFFERS, SCALED_RESULT, SHAPE_DIFFERS, STILL_TRACKED, VALUES_REORDERED, Contradiction, GradientSignature,
                                     Mistake, Suspect, code_binds_default, code_holds_from_import,
                                     code_calls_outside_block, code_passes, code_shows, contradiction,
                                     first_matching_variant,
                                     gradient_signature, is_scaled, own_answer, unless_contradicted)
from graders.engine.plots import LossCurves
from graders.engine.recording import RECORD, RECORDING, expected
from graders.engine.seeded_draws import follows_the_recipes_law, recipe_drawn_otherwise, recipe_drawn_point_by_point
from graders.engine.registration import checks_for
from graders.engine.source_evidence import AUTOGRAD_IN_CODE, BACKWARD_IN_CODE, GLOBAL_SEED
from graders.engine.student import Meanwhile, Returned, Student
from graders.sandbox import Scalar, StudentError, origin

Exercise = course_config.Exercise


def exercise(lesson_folder: str, slug: str) -> course_config.Exercise:
    """The exercise `slug` of the lesson in `lesson_folder`, as the course declares it."""
    for lesson in course_config.LESSONS:
        if lesson.folder == lesson_folder:
            return lesson.exercise(slug)
    raise KeyError(f"the course has no lesson in folder {lesson_folder!r}")


__all__ = ["AUTOGRAD_IN_CODE", "BACKWARD_IN_CODE", "GLOBAL_SEED", "CheckFailed", "DTYPE_DIFFERS", "SHAPE_DIFFERS", "SCALED_RESULT", "STILL_TRACKED", "VALUES_REORDERED", "Exercise", "GradientSignature", "defaults_told", "LossCurves",
           "Meanwhile", "Mistake", "RECORD", "RECORDING", "Returned", "Scalar", "Student", "StudentError", "Suspect",
           "argument_changed", "dtype_fact", "none_fact", "order_fact", "scale_fact", "seed_judged", "shape_fact", "checks_for", "close", "code_calls_outside_block", "collect_mistakes", "code_lines", "describe", "distinct", "drawn", "exercise", "expect_code_shows",
           "expect_float_not_tensor", "expect_number", "expect_tensor", "expected", "fail", "fail_with_mistake",
           "first_matching_variant", "gradient_signature", "is_scaled", "number_problem", "origin", "tensor_problem",
           "recipe_drawn_otherwise", "recipe_drawn_point_by_point", "follows_the_recipes_law", "set_order_relied_on", "pitfall_shown", "list_of_one_object", "state_kept_between_calls", "twin", "twin_generator", "twin_random",
           "values_problem"]
