"""How the result model is read back from its JSON (graders/engine/result_reading.py): each field checked against
its type, a field unknown to it left aside, a field older data lacks given its default, and data that is not a
result refused with NotAResult naming the file and the field's place in it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from graders.engine.result_reading import NotAResult, Readable
from graders.engine.results import SubmissionResult


@dataclass
class _Part(Readable):
    REQUIRED = ("name",)

    name: str
    weight: float = 1.0
    count: int = 0
    tags: list[str] = field(default_factory=list)


@dataclass
class _Whole(Readable):
    REQUIRED = ("parts",)

    parts: list[_Part]
    note: str | None = None


def test_a_level_reads_its_fields_typed_leaving_unknown_ones_aside_and_defaulting_absent_ones() -> None:
    whole = _Whole.from_dict({"parts": [{"name": "a", "weight": 2, "extra": "left aside"}, {"name": "b", "count": 3,
                                                                                          "tags": ["x"]}]})
    assert whole == _Whole([_Part("a", 2.0), _Part("b", count=3, tags=["x"])], None)
    assert type(whole.parts[0].weight) is float  # a whole number written for a float reads as one


@pytest.mark.parametrize("data, said", [
    ({"parts": [{"name": "a", "count": True}]}, "part.json, at parts[0].count, is True (true or false), not a whole "
                                                "number"),
    ({"parts": [{"name": "a", "tags": ["x", 1]}]}, "part.json, at parts[0].tags, is a list, not a list of text"),
    ({"parts": [{}]}, "part.json, at parts[0], has no `name`: not a _Part of the grader's results"),
    ({"parts": [], "note": 3}, "part.json, at note, is 3 (a number), not text or null"),
])
def test_a_wrong_value_is_refused_naming_its_place(data: dict, said: str) -> None:
    with pytest.raises(NotAResult) as refused:
        _Whole.from_dict(data, "part.json")
    assert str(refused.value) == said


@pytest.mark.parametrize(("text", "said"), [
    ("not json {", "is not a result of the grader: it is not JSON"),
    ("[1, 2]", "is a list, not an object of SubmissionResult's fields"),
    ('{"student": "ann"}', "has no `score`, `max_score`, `exercises`: not a SubmissionResult"),
    ('{"score": 1, "max_score": 2, "exercises": [{"slug": "views", "score": "1", "max_score": 2}]}',
     "at exercises[0].score, is '1' (text), not a number"),
    ('{"score": 1, "max_score": 2, "exercises": [{"slug": "views", "score": 1, "max_score": 2, "checks": '
     '[{"id": "c", "points": 1, "score": 1, "passed": "yes"}]}]}',
     "at exercises[0].checks[0].passed, is 'yes' (text), not true or false"),
    ('{"score": 1, "max_score": 2, "exercises": {"views": 1}}', "at exercises, is an object, not a list"),
    ('{"score": 1, "max_score": 2, "exercises": [{"slug": "views", "score": 1, "max_score": 2, "checks": '
     '[{"id": "c", "points": 1, "score": 1}]}]}', "at exercises[0].checks[0], has no `passed`: not a CheckResult"),
])
def test_a_file_that_is_not_a_result_is_refused_naming_the_file_and_what_is_wrong(tmp_path: Path, text: str,
                                                                                   said: str) -> None:
    path = tmp_path / "result.json"
    path.write_text(text)
    with pytest.raises(NotAResult) as refused:
        SubmissionResult.read(path)
    assert str(refused.value).startswith(str(path)) and said in str(refused.value), str(refused.value)
