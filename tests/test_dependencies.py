"""What a fresh install gets is what the tests proved: every direct dependency is held to a tested release line
(pyproject.toml), constraints.txt pins the exact versions of the environment the tests passed in, inside those
ranges, and this test run is in that environment."""

from __future__ import annotations

import importlib.metadata
import re
import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from conftest import ROOT


def _direct_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    found = [Requirement(line) for line in project["dependencies"]]
    for extra in project["optional-dependencies"].values():
        found += [Requirement(line) for line in extra if not line.startswith(project["name"])]
    return found


def _pins() -> dict[str, Version]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            match = re.fullmatch(r"([A-Za-z0-9._-]+)==([^\s;]+)", line)
            assert match, f"constraints.txt: {line!r} is not NAME==VERSION"
            pins[canonicalize_name(match[1])] = Version(match[2])
    return pins


def test_every_direct_dependency_has_an_upper_bound() -> None:
    open_ended = [str(r) for r in _direct_requirements()
                  if not any(spec.operator in ("==", "<", "<=", "~=") for spec in r.specifier)]
    assert not open_ended, f"a new release of these could change grading untested: {open_ended}"


def test_the_pins_sit_inside_pyprojects_ranges() -> None:
    pins = _pins()
    outside = {str(r): str(pins.get(canonicalize_name(r.name))) for r in _direct_requirements()
               if canonicalize_name(r.name) != "torch"
               and (canonicalize_name(r.name) not in pins or pins[canonicalize_name(r.name)] not in r.specifier)}
    assert not outside, f"constraints.txt pins these outside pyproject.toml's range (or not at all): {outside}"


def test_torch_is_pinned_by_pyproject_alone() -> None:
    # Its CPU build carries a local label (2.13.0+cpu) that other platforms' builds lack: a pin of it in
    # constraints.txt would refuse them.
    assert "torch" not in _pins()
    assert [str(r.specifier) for r in _direct_requirements() if r.name == "torch"] == ["==2.13.0"]


def test_this_run_is_in_the_environment_the_constraints_pin() -> None:
    """Fails where the tests run on other versions than constraints.txt pins (installed without `-c
    constraints.txt`, or upgraded since): what passes here then proves nothing about what a fresh install gets."""
    differing = {}
    for name, pinned in _pins().items():
        try:
            installed = Version(importlib.metadata.version(name))
        except importlib.metadata.PackageNotFoundError:
            continue  # pinned for a platform or an extra this environment does not use
        if installed != pinned:
            differing[name] = f"{installed} installed, {pinned} pinned"
    assert not differing, ("install with `python -m pip install -e \".[test]\" -c constraints.txt` (README), "
                           f"or move the pins on purpose: {differing}")
