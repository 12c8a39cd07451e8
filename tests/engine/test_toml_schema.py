"""graders/engine/toml_schema.py: a TOML file read into a msgspec schema, its mistakes said in the file's own
words: the file, the key (arrays of tables counted from 1), what was wrong and what to write."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import msgspec
import pytest

from graders.engine.toml_schema import convert, read_toml


class _Step(msgspec.Struct, forbid_unknown_fields=True):
    name: str
    size: Annotated[float, msgspec.Meta(ge=0, description="how big the step is", examples=[2])]


class _Plan(msgspec.Struct, forbid_unknown_fields=True):
    title: Annotated[str, msgspec.Meta(description="the plan's name", examples=["Warm-up"])]
    steps: list[_Step] = []
    fast: bool = False


class _Wrong(ValueError):
    pass


def _said(tmp_path: Path, text: str) -> str:
    path = tmp_path / "plan.toml"
    path.write_text(text)
    with pytest.raises(_Wrong) as raised:
        convert(read_toml(path, _Wrong, "the plan"), _Plan, path, _Wrong)
    assert str(raised.value).startswith(f"{path}: ")
    return str(raised.value).removeprefix(f"{path}: ")


def test_a_value_of_the_wrong_kind_is_named_with_what_was_written_and_an_example(tmp_path: Path) -> None:
    said = _said(tmp_path, 'title = "p"\n[[steps]]\nname = "a"\nsize = 1\n[[steps]]\nname = "b"\nsize = "big"\n')
    assert said == 'key steps[2].size should be a number, not "big" (how big the step is; e.g. size = 2)'
    assert _said(tmp_path, 'title = "p"\nfast = 1\n') == "key fast should be true or false, not 1"
    assert _said(tmp_path, 'title = "p"\n[[steps]]\nname = "a"\nsize = -1\n') == (
        "key steps[1].size should be a number of 0 or more, not -1 (how big the step is; e.g. size = 2)")


def test_an_unknown_key_is_named_with_the_keys_its_table_has(tmp_path: Path) -> None:
    assert _said(tmp_path, 'title = "p"\n[[steps]]\nname = "a"\nsize = 1\nsise = 2\n') == (
        "unknown key steps[1].sise: correct its spelling or remove it (the keys here are: name, size)")


def test_a_missing_key_is_named_with_what_to_add(tmp_path: Path) -> None:
    assert _said(tmp_path, "fast = true\n") == 'missing key title; add it (the plan\'s name; e.g. title = "Warm-up")'


def test_a_table_read_apart_is_named_by_its_key(tmp_path: Path) -> None:
    with pytest.raises(_Wrong, match=r"^plan.toml: key plans.morning.title should be a string, not 3 "):
        convert({"title": 3}, _Plan, Path("plan.toml"), _Wrong, "plans.morning")


def test_a_file_that_is_not_toml_or_not_there_is_named(tmp_path: Path) -> None:
    assert _said(tmp_path, "title = [").startswith("not valid TOML (")
    with pytest.raises(_Wrong, match="nowhere.toml: cannot read the plan"):
        read_toml(tmp_path / "nowhere.toml", _Wrong, "the plan")
