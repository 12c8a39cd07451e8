"""What students see of what their code wrote (graders/engine/printed.py): their prints and the warnings blamed on
their own file stay, in order; a warning blamed on any other file goes, with the source line Python prints under
it."""

from __future__ import annotations

from graders.engine.printed import without_foreign_warnings

STUDENT = "lesson01/views.py"


def test_a_warning_blamed_on_another_file_goes_with_its_source_line() -> None:
    text = ("loss 0.5\n"
            "/usr/lib/python3/site-packages/torch/_tensor.py:1512: UserWarning: the grader's own warning\n"
            "  return super().__torch_function__(func, types, args, kwargs)\n"
            "loss 0.25\n")
    assert without_foreign_warnings(text, STUDENT) == "loss 0.5\nloss 0.25\n"


def test_a_warning_blamed_on_the_students_file_stays_with_its_source_line() -> None:
    text = (f"{STUDENT}:7: DeprecationWarning: torch.foo is deprecated\n"
            "  y = torch.foo(x)\n"
            "done\n")
    assert without_foreign_warnings(text, STUDENT) == text


def test_after_a_dropped_warning_the_students_next_print_is_kept_even_if_indented() -> None:
    text = ("/elsewhere/drivers.py:3: RuntimeWarning: not theirs\n"
            "  source of it\n"
            "step 1\n"
            "  an indented print of theirs\n")
    assert without_foreign_warnings(text, STUDENT) == "step 1\n  an indented print of theirs\n"


def test_text_without_warnings_is_returned_as_it_is() -> None:
    text = "  indented\nplain: text\n"
    assert without_foreign_warnings(text, STUDENT) is text
