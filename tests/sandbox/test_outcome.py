"""What the grader knows of a raised exception (graders/sandbox/outcome.py's StudentError): the worker sends the qualified names of its class and bases, and
the grader judges from them whether an `except ValueError` would catch it (worker._describe, StudentError.is_a)."""

from __future__ import annotations

import builtins

from graders.sandbox.outcome import StudentError
from graders.sandbox.worker import _describe


class ShapeError(ValueError):
    """A student's error that subclasses ValueError."""


class ValueError(Exception):  # noqa: A001 - a student's look-alike that only takes the name
    """Not Python's ValueError: `except ValueError` (the built-in) does not catch it."""


class _Hiding(type):
    """A metaclass whose classes raise when asked for their method resolution order."""

    @property
    def __mro__(cls) -> tuple:
        raise RuntimeError("no lineage")


class Hidden(Exception, metaclass=_Hiding):
    """An error whose class hides its bases."""


def _as_the_grader_gets(error: BaseException) -> StudentError:
    try:
        raise error
    except BaseException as raised:  # noqa: BLE001 - any error, described as the worker describes it
        return StudentError.from_wire(_describe(raised, __file__))


def test_a_subclass_of_value_error_is_a_value_error() -> None:
    error = _as_the_grader_gets(ShapeError("shapes (3,) and (4,)"))
    assert error.type == "ShapeError" and error.is_a(builtins.ValueError)
    assert error.mro[0].endswith(".ShapeError") and "builtins.ValueError" in error.mro
    assert error.shown_type() == "ShapeError"


def test_a_built_in_error_is_itself_and_not_another() -> None:
    error = _as_the_grader_gets(builtins.ValueError("mode"))
    assert error.is_a(builtins.ValueError) and error.is_a(Exception) and not error.is_a(TypeError)
    assert error.shown_type() == "ValueError"


def test_a_class_that_only_takes_the_name_value_error_is_not_one_and_is_shown_qualified() -> None:
    error = _as_the_grader_gets(ValueError("mode"))
    assert error.type == "ValueError" and not error.is_a(builtins.ValueError)
    assert error.shown_type() == f"{__name__}.ValueError"


def test_a_class_that_hides_its_bases_is_judged_by_its_name_alone() -> None:
    error = _as_the_grader_gets(Hidden("hidden"))
    assert error.mro == () and error.type == "Hidden" and not error.is_a(Exception)


def test_names_that_are_not_strings_do_not_travel() -> None:
    error = StudentError.from_wire({"type": "ShapeError", "message": "", "mro": ["x.ShapeError", 3, None,
                                                                                "builtins.ValueError"]})
    assert error.mro == ("x.ShapeError", "builtins.ValueError")
