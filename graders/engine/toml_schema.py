"""TOML files read into typed schemas: msgspec checks the types, and this module says what it found as an
instructor would want to read it, naming the file, the key, what was wrong and what to write instead.

A schema is a msgspec Struct (`forbid_unknown_fields=True`, so that a misspelt key is an error and not a
default silently kept). A field's `msgspec.Meta(description=..., examples=[...])` is the advice an error about
it gives: one place says what a key is for and how it is written.
"""

from __future__ import annotations

import json
import re
import tomllib
import typing
from datetime import date, datetime, time
from pathlib import Path
from typing import Any, TypeVar

import msgspec

Schema = TypeVar("Schema")

# msgspec's names of the kinds of value, as a TOML file's author knows them.
_KINDS = {"str": "a string", "bool": "true or false", "int": "an integer", "float": "a number", "array": "an array", "object": "a table", "datetime": "a date-time",
          "date": "a date", "time": "a time"}
_BOUNDS = {">=": "of {} or more", ">": "above {}", "<=": "of at most {}", "<": "below {}"}


def read_toml(path: Path, error: type[Exception], what: str) -> dict[str, Any]:
    """The table of the TOML file at `path` (`what` it is, for the message); `error` where it cannot be read or is
    not TOML."""
    try:
        with path.open("rb") as file:
            return tomllib.load(file)
    except OSError as failure:
        raise error(f"{path}: cannot read {what} ({failure.strerror or failure})") from None
    except tomllib.TOMLDecodeError as failure:
        raise error(f"{path}: not valid TOML ({failure})") from None


def convert(data: Any, schema: type[Schema], path: Path, error: type[Exception], key: str = "") -> Schema:
    """`data` (read from the file at `path`, where it sits at `key`: "" for the whole file) as an instance of
    `schema`; `error` naming the file, the key, what was wrong and what to write where it does not fit."""
    try:
        return msgspec.convert(data, schema)
    except msgspec.ValidationError as failure:
        try:
            said = _explained(str(failure), data, schema, key)
        except (LookupError, TypeError, ValueError):  # a schema this module cannot walk: msgspec's own words
            said = f"{key + ': ' if key else ''}{failure}"
        raise error(f"{path}: {said}") from None


def _explained(message: str, data: Any, schema: Any, key: str) -> str:
    """msgspec's `message` ("Expected `int`, got `str` - at `$.checks[0].points`") in the file's own words."""
    problem, _, at = message.partition(" - at `$")
    if "[...]" in at:  # inside a typed dict, whose keys msgspec does not name: read such tables entry by entry
        raise ValueError(message)
    steps: list[str | int] = [name or int(index) for name, index in re.findall(r"\.(\w+)|\[(\d+)\]", at)]
    where = _key_name(key, steps)
    if found := re.fullmatch(r"Object contains unknown field `(.+)`", problem):
        known = ", ".join(_struct(_type_at(schema, steps)).__struct_fields__)
        return (f"unknown key {_key_name(where, [found[1]])}: correct its spelling or remove it (the keys here are: "
                f"{known})")
    if found := re.fullmatch(r"Object missing required field `(.+)`", problem):
        field = _type_at(schema, [*steps, found[1]])
        return f"missing key {_key_name(where, [found[1]])}; add it{_advice(field, found[1])}"
    field, value = _type_at(schema, steps), _value_at(data, steps)
    name = str(steps[-1]) if steps and isinstance(steps[-1], str) else where.rpartition(".")[2]
    return f"key {where} should be {_wanted(problem, field)}, not {_toml(value)}{_advice(field, name)}"


def _key_name(key: str, steps: list[str | int]) -> str:
    """The dotted key of a value (`checks[2].points`): arrays of tables counted from 1, as their author counts."""
    for step in steps:
        key = f"{key}[{step + 1}]" if isinstance(step, int) else f"{key}.{step}" if key else step
    return key


def _wanted(problem: str, field: Any) -> str:
    """What the value should have been, from msgspec's `problem` and the schema's type `field`."""
    if problem.startswith("Invalid enum value"):
        return "one of " + ", ".join(json.dumps(choice) for choice in typing.get_args(_bare(field)))
    if "with a timezone component" in problem:
        return "a date-time with its UTC offset"
    found = re.match(r"Expected `([^`]+)`(?:, got `[^`]+`)?(.*)", problem)
    if not found:
        return f"something else ({problem})"
    named = found[1].replace("int | float", "float")  # both: any number
    kinds = [_KINDS.get(kind, kind) for kind in named.split(" | ") if kind != "null"]
    bound = re.fullmatch(r" (>=|>|<=|<) (\S+)", found[2])
    limit = f" {_BOUNDS[bound[1]].format(_number(bound[2]))}" if bound else ""
    return " or ".join(dict.fromkeys(kinds)) + limit


def _advice(field: Any, name: str) -> str:
    """What the schema says of a key: its description and an example to copy, from its msgspec.Meta."""
    meta = next((m for m in typing.get_args(_annotated(field))[1:] if isinstance(m, msgspec.Meta)), None)
    if meta is None:
        return ""
    parts = [meta.description] if meta.description else []
    parts += [f"e.g. {name} = {_toml(meta.examples[0])}"] if meta.examples else []
    return f" ({'; '.join(parts)})" if parts else ""


def _annotated(kind: Any) -> Any:
    """`kind`, or its optional's Annotated member (`Annotated[int, Meta(...)] | None`)."""
    if _is_union(kind):
        return next((m for m in typing.get_args(kind) if typing.get_origin(m) is typing.Annotated), kind)
    return kind


def _type_at(schema: Any, steps: list[str | int]) -> Any:
    """The schema's type of the value at `steps` (field names and array indices) from its top."""
    for step in steps:
        current = _bare(schema)
        if isinstance(step, str):
            schema = typing.get_type_hints(_struct(current), include_extras=True).get(step, Any)
        else:
            arguments = typing.get_args(current)
            schema = arguments[-1] if arguments else Any
    return schema


def _bare(kind: Any) -> Any:
    """`kind` without its Annotated metadata and without None, where it is optional."""
    kind = _annotated(kind)
    if typing.get_origin(kind) is typing.Annotated:
        kind = typing.get_args(kind)[0]
    members = [m for m in typing.get_args(kind) if m is not type(None)] if _is_union(kind) else [kind]
    return members[0] if len(members) == 1 else kind


def _struct(kind: Any) -> Any:
    """The Struct that `kind` is, or the one of its union's members that is."""
    kind = _bare(kind)
    for member in typing.get_args(kind) if _is_union(kind) else (kind,):
        if isinstance(member, type) and issubclass(member, msgspec.Struct):
            return member
    raise TypeError(f"{kind!r} is not a table of the schema")


def _is_union(kind: Any) -> bool:
    import types

    return typing.get_origin(kind) in (typing.Union, types.UnionType)


def _value_at(data: Any, steps: list[str | int]) -> Any:
    for step in steps:
        data = data[step]
    return data


def _number(text: str) -> str:
    return f"{float(text):g}"


def _toml(value: Any) -> str:
    """`value` as a TOML file writes it, so that an author recognises what they wrote."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return json.dumps(value) if isinstance(value, str) else repr(value)
