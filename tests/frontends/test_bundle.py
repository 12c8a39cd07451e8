"""The copy of the package a student's notebook loads (graders/frontends/nbgrader/bundle.py): every reference to
`graders` pointed at `nbchecks`, and the engine modules the plugin and the released checks import, followed
through their imports, without the lesson's checks, the nbgrader front end or a module of this package that is
not there. Building and proving a whole bundle is test_nbgrader.py's."""

from __future__ import annotations

import pytest

from graders.frontends.nbgrader.bundle import ENGINE, BundleError, engine_modules, rename, rename_recording


def test_every_reference_to_the_package_is_renamed_and_nothing_else() -> None:
    source = ("from graders import kit\nimport graders.engine.expect\nfrom graders.engine.expect import expected\n"
              "x = 'graders.lesson01.views:f'\nmy_graders.x = 1\nsub-graders.y\n")
    assert rename(source) == ("from nbchecks import kit\nimport nbchecks.engine.expect\n"
                              "from nbchecks.engine.expect import expected\nx = 'nbchecks.lesson01.views:f'\n"
                              "my_graders.x = 1\nsub-graders.y\n")
    assert rename_recording({"graders.lesson01.views:f": "1", "other:graders.x": "2"}) == {
        "nbchecks.lesson01.views:f": "1", "other:graders.x": "2"}


def test_the_modules_bundled_are_the_plugins_and_the_released_checks_imports_followed() -> None:
    wanted = engine_modules([])
    assert {"frontends/pytest_plugin", "frontends/classroom", "frontends/__init__", "engine/__init__"} <= set(wanted)
    assert all((ENGINE / f"{name}.py").is_file() for name in wanted)
    assert not any(name.startswith("frontends/nbgrader") for name in wanted), "the runtime is copied apart"
    assert not any(name.endswith("/checks") for name in wanted), "the lesson's checks are released apart"
    # A released checks module brings what it imports (a whole package, when it imports the package's door).
    with_sandbox = engine_modules(["from graders.sandbox import StudentError\n"])
    assert {p.relative_to(ENGINE).with_suffix("").as_posix() for p in (ENGINE / "sandbox").glob("*.py")} <= set(
        with_sandbox)


def test_a_module_that_is_not_in_the_package_is_refused_by_name() -> None:
    with pytest.raises(BundleError, match=r"graders\.engine\.nowhere is imported by the engine but is not a module"):
        engine_modules(["import graders.engine.nowhere\n"])
