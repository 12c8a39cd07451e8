"""How the result model (results.py) is read back from its JSON: each field checked against its type, a field
written before it existed given its default, and data that is not a result refused with NotAResult, whose
message names the file and the field's place in it. Standard library only, as results.py."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar


class NotAResult(ValueError):
    """Data that is not a result of the model; the message names where it came from and what is wrong."""


Model = TypeVar("Model", bound="Readable")


class Readable:
    """What the levels of the model share: being read back from their JSON, typed and checked. A subclass is a
    dataclass whose fields are of the types _typed reads, or lists of another subclass."""

    REQUIRED: tuple[str, ...] = ()  # the fields without which data is not this level of a result

    def __init_subclass__(cls, **options: Any) -> None:
        super().__init_subclass__(**options)
        _NESTED[f"list[{cls.__name__}]"] = cls  # a field that lists this level (ExerciseResult.checks)

    @classmethod
    def from_dict(cls: type[Model], data: Any, where: str = "the result", at: str = "") -> Model:
        """This level of the model from its JSON data. A field it does not know is left aside (a batch's record
        holds more); a field written by an older version, before a field existed, takes that field's default;
        a missing required field or a value of the wrong type raises NotAResult naming `where` (the file) and
        `at` (the field's place in it, such as `exercises[0].checks[2]`)."""
        if not isinstance(data, dict):
            raise NotAResult(f"{_place(where, at)} is {_kind(data)}, not an object of {cls.__name__}'s fields: "
                             "not a result of the grader")
        missing = [name for name in cls.REQUIRED if name not in data]
        if missing:
            raise NotAResult(f"{_place(where, at)} has no {', '.join(f'`{name}`' for name in missing)}: not a "
                             f"{cls.__name__} of the grader's results")
        values = {each.name: _typed(data[each.name], str(each.type), where, f"{at}.{each.name}".lstrip("."))
                  if each.name in data else _absent(each) for each in dataclasses.fields(cls)}  # type: ignore[arg-type]
        return cls(**values)


def _place(where: str, at: str) -> str:
    return f"{where}, at {at}," if at else where


def _typed(value: Any, kind: str, where: str, at: str) -> Any:
    """`value` read as a field of type `kind` (its annotation's text), or NotAResult naming `where` and `at`."""
    if kind in _NESTED:
        if not isinstance(value, list):
            raise NotAResult(f"{_place(where, at)} is {_kind(value)}, not a list")
        return [_NESTED[kind].from_dict(item, where, f"{at}[{index}]") for index, item in enumerate(value)]
    if kind == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if kind == "int" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if (kind == "str" and isinstance(value, str) or kind == "bool" and isinstance(value, bool)
            or kind == "str | None" and (value is None or isinstance(value, str))):
        return value
    if kind == "list[str]" and isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    if kind == "dict[str, str]" and isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return dict(value)
    if kind not in _WORDS:
        raise TypeError(f"{at}: the result model reads no field of type {kind} (add it to result_reading._typed)")
    raise NotAResult(f"{_place(where, at)} is {_kind(value)}, not {_WORDS.get(kind, kind)}")


def _absent(each: dataclasses.Field[Any]) -> Any:
    """The value of a field that older data does not hold: its default, else the empty value of its type."""
    if each.default is not dataclasses.MISSING:
        return each.default
    if each.default_factory is not dataclasses.MISSING:
        return each.default_factory()
    return {"str": "", "float": 0.0, "int": 0, "bool": False}[str(each.type)]


def _kind(value: Any) -> str:
    shown = repr(value) if isinstance(value, (str, int, float, bool)) or value is None else ""
    name = {dict: "an object", list: "a list", str: "text", bool: "true or false", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)
    return f"{shown[:40]} ({name})" if shown else name


_WORDS = {"str": "text", "float": "a number", "int": "a whole number", "bool": "true or false",
          "str | None": "text or null", "list[str]": "a list of text", "dict[str, str]": "an object of text"}


_NESTED: dict[str, type[Readable]] = {}  # "list[CheckResult]" -> CheckResult: filled as the levels are defined
